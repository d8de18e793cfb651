// bulk-store-reuse: a bulk / TMA store reads its shared-memory source
// asynchronously; the source may be written again, and the CTA may exit,
// only after cp.async.bulk.wait_group.read N covers the store's committed
// group. Shapes: inline asm in a loop (generic rewrite), cuda::ptx with a
// double buffer (N = 1 right, N = 2 too shallow), CUTLASS-style
// tma_store_arrive / tma_store_wait<N> wrappers with a TMA tensor store
// (kernel end), and a TMA load refilling the source.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// 1. Inline asm: every round rewrites the staging tile that the previous
// round's bulk store may still be reading.
template <bool kWait>
__device__ __forceinline__ void staged_rounds(float* dst, int rounds) {
  __shared__ alignas(128) float stage[256];
  for (int r = 0; r < rounds; ++r) {
    if (kWait && threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    __syncthreads();
    stage[threadIdx.x] = float(r * 256 + threadIdx.x);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" ::"l"(dst + r * 256),
                   "r"(smem(stage))
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__global__ void asm_rewrite_without_wait(float* dst, int rounds) {
  staged_rounds<false>(dst, rounds);  // expect: bulk-store-reuse
}
__global__ void asm_rewrite_after_wait(float* dst, int rounds) { staged_rounds<true>(dst, rounds); }

// 2. cuda::ptx, double buffer: before buffer r % 2 is rewritten, one group
// (the other buffer's store) may stay in flight: wait_group.read 1.
template <int kInFlight>
__device__ __forceinline__ void double_buffered(float* dst, int rounds) {
  __shared__ alignas(128) float stage[2][256];
  for (int r = 0; r < rounds; ++r) {
    float* buf = stage[r % 2];
    if (threadIdx.x == 0) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<kInFlight>());
    __syncthreads();
    buf[threadIdx.x] = float(r + threadIdx.x);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
      cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, dst + r * 256, buf, 1024);
      cuda::ptx::cp_async_bulk_commit_group();
    }
  }
  if (threadIdx.x == 0) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
}
__global__ void ptx_double_buffer_wait_too_shallow(float* dst, int rounds) {
  double_buffered<2>(dst, rounds);  // expect: bulk-store-reuse
}
__global__ void ptx_double_buffer_wait_one(float* dst, int rounds) { double_buffered<1>(dst, rounds); }

// 3. CUTLASS-style epilogue wrappers around a TMA tensor store: the kernel
// must not end before tma_store_wait<0>().
__device__ __forceinline__ void tma_store_fence() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void tma_store_arrive() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void tma_store_2d(const void* map, const void* src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(map),
               "r"(smem(src)), "r"(x), "r"(y)
               : "memory");
}
template <bool kWait>
__device__ __forceinline__ void epilogue(const void* map, const float* acc) {
  __shared__ alignas(128) float tile[64 * 32];
  for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x) tile[i] = acc[i];
  tma_store_fence();
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_2d(map, tile, 0, blockIdx.x * 32);  // expect-strict: bulk-store-reuse
    tma_store_arrive();
    if (kWait) tma_store_wait<0>();
  }
}
__global__ void cutlass_epilogue_exit_without_wait(const __grid_constant__ uint64_t map, const float* acc) {
  epilogue<false>(&map, acc);
}
__global__ void cutlass_epilogue_waits(const __grid_constant__ uint64_t map, const float* acc) {
  epilogue<true>(&map, acc);
}

// 4. A TMA load refills the staging buffer right after a bulk store from it.
template <bool kWait>
__device__ __forceinline__ void store_then_refill(float* dst, const float* src) {
  __shared__ alignas(128) float stage[256];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n\tfence.mbarrier_init.release.cluster;" ::"r"(smem(&full))
                 : "memory");
  }
  stage[threadIdx.x] = float(threadIdx.x);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" ::"l"(dst), "r"(smem(stage)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    if (kWait) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(smem(&full)) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::"r"(
                     smem(stage)),
                 "l"(src), "r"(smem(&full))
                 : "memory");
    if (!kWait) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}
__global__ void refill_before_wait(float* dst, const float* src) {
  store_then_refill<false>(dst, src);  // expect: bulk-store-reuse
}
__global__ void refill_after_wait(float* dst, const float* src) { store_then_refill<true>(dst, src); }
