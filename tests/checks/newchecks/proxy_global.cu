// proxy-global: generic stores to global memory, a flag hand-off between
// blocks, then the async proxy reads that memory (a bulk copy global ->
// shared). Broken: no fence.proxy.async.global on either side. Fixed: the
// writer fences before its release, or the issuer after its acquire. And the
// reverse: a bulk store to global memory released with a flag before
// cp.async.bulk.wait_group (not .read) completed it. Shapes: inline asm,
// cuda::ptx / cuda::atomic_ref.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void wait_parity(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(bar), "r"(parity)
      : "memory");
}

// Block 0 writes `buffer` and raises `flag`; block 1 waits for it and loads
// `buffer` into shared memory with a bulk copy. kFence: 0 none, 1 writer, 2 issuer.
template <int kFence>
__device__ __forceinline__ void combine(float* buffer, unsigned* flag, float* out) {
  __shared__ alignas(128) float tile[256];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n\tfence.mbarrier_init.release.cluster;" ::"r"(smem(&full))
                 : "memory");
  }
  __syncthreads();
  if (blockIdx.x == 0) {
    buffer[threadIdx.x] = float(threadIdx.x) + 0.5f;
    if (kFence == 1) asm volatile("fence.proxy.async.global;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(flag) : "memory");
  } else if (blockIdx.x == 1) {
    if (threadIdx.x == 0) {
      unsigned seen = 0;
      do {
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
      } while (seen == 0);
      if (kFence == 2) asm volatile("fence.proxy.async.global;" ::: "memory");
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(smem(&full)) : "memory");
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::"r"(
                       smem(tile)),
                   "l"(buffer), "r"(smem(&full))
                   : "memory");
    }
    wait_parity(smem(&full), 0);
    out[threadIdx.x] = tile[threadIdx.x];
  }
}
__global__ void asm_flag_then_bulk_load(float* buffer, unsigned* flag, float* out) {
  combine<0>(buffer, flag, out);  // expect: proxy-global
}
__global__ void asm_writer_fence(float* buffer, unsigned* flag, float* out) { combine<1>(buffer, flag, out); }
__global__ void asm_issuer_fence(float* buffer, unsigned* flag, float* out) { combine<2>(buffer, flag, out); }

// The same with cuda::atomic_ref for the flag and cuda::ptx for the copy.
template <bool kFence>
__device__ __forceinline__ void ptx_combine(float* buffer, unsigned* flag, float* out) {
  __shared__ alignas(128) float tile[256];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&full, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
  if (blockIdx.x == 0) {
    buffer[threadIdx.x] = float(threadIdx.x) * 2.0f;
    __syncthreads();
    if (threadIdx.x == 0) f.store(1, cuda::memory_order_release);
  } else if (blockIdx.x == 1) {
    if (threadIdx.x == 0) {
      while (f.load(cuda::memory_order_acquire) == 0) {
      }
      if (kFence) cuda::ptx::fence_proxy_async(cuda::ptx::space_global);
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                           &full, 1024);
      cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, tile, buffer, 1024, &full);
    }
    wait_parity(smem(&full), 0);
    out[threadIdx.x] = tile[threadIdx.x];
  }
}
__global__ void ptx_flag_then_bulk_load(float* buffer, unsigned* flag, float* out) {
  ptx_combine<false>(buffer, flag, out);  // expect: proxy-global
}
__global__ void ptx_issuer_fence(float* buffer, unsigned* flag, float* out) { ptx_combine<true>(buffer, flag, out); }

// Reverse: thread 0 stores a tile to global with a bulk copy and raises the
// flag; another block acquires it and reads the tile generically.
template <bool kComplete>
__device__ __forceinline__ void store_then_flag(float* buffer, unsigned* flag, float* out) {
  __shared__ alignas(128) float tile[256];
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
  if (blockIdx.x == 0) {
    tile[threadIdx.x] = float(threadIdx.x);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" ::"l"(buffer), "r"(smem(tile))
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      if (kComplete) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
      else asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      f.store(1, cuda::memory_order_release);  // expect: proxy-global
    }
  } else if (blockIdx.x == 1) {
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
    out[threadIdx.x] = buffer[threadIdx.x];
  }
}
__global__ void bulk_store_released_after_read_wait(float* buffer, unsigned* flag, float* out) {
  store_then_flag<false>(buffer, flag, out);
}
__global__ void bulk_store_released_after_completion(float* buffer, unsigned* flag, float* out) {
  store_then_flag<true>(buffer, flag, out);
}
