// Issue 30, shape 7: bulk stores. A bulk / TMA store reads its shared-memory
// source asynchronously until the issuing thread's cp.async.bulk.wait_group
// (.read) covers it; other threads may rewrite the source only after a
// barrier that follows that wait. Broken here: threads that rewrite the
// buffer between the barrier before the store and the next barrier (not
// after a later barrier); a stage refilled by a TMA load at the same ring
// index while the store is still pending. And a CTA that exits with a store
// in flight on some exit path (a wait at the loop top covers the back edge,
// not the exit): strict tier (../shared/ordering-rules.md, "bulk-store source
// reuse": whether the hardware can hand the shared memory to a new CTA
// before the read completes is not documented).
// Shapes: inline asm, cuda::ptx, loops, an early-exit loop, a noinline drain.
// Every variant is found (3 and 4 in the strict tier). Variant 3's drain at
// the loop top is not a final one: the next round's store follows it on the
// issuer's path, so the exits after the loop's last store are not drained.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void bulk_store(float* dst, const float* src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem(src)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// 1. Round r + 1 rewrites the buffer right after thread 0 issued round r's
// store: the barrier before the store is behind them, the next one ahead.
// Fixed: thread 0 waits (.read) and a barrier follows before the rewrite.
template <bool kWaitThenBarrier>
__device__ __forceinline__ void rounds(const float* in, float* out, int n) {
  __shared__ alignas(128) float buf[256];
  for (int r = 0; r < n; ++r) {
    if (kWaitThenBarrier) {
      if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      __syncthreads();
    }
    buf[threadIdx.x] = in[r * 256 + threadIdx.x] * 2.0f;  // expect: bulk-store-reuse
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) bulk_store(out + r * 256, buf, 1024);
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__global__ void rewrite_before_next_barrier(const float* in, float* out, int n) { rounds<false>(in, out, n); }
__global__ void wait_barrier_then_rewrite(const float* in, float* out, int n) { rounds<true>(in, out, n); }

// 2. A two-deep ring refilled by TMA at the index it was stored from, after a
// wait that leaves two groups pending (cuda::ptx): the refill of stage s at
// round i + 2 follows the store of round i with only the store of round i + 1
// committed after it, so wait_group.read 2 does not cover it. Fixed:
// wait_group.read 1 (the stage refilled next was stored two rounds ago, with
// one group committed since). (An earlier version of this file called the
// wait_group.read 1 ring broken; it is not.)
template <int kLeave>
__device__ __forceinline__ void ring(const float* src, float* dst, int chunks) {
  __shared__ alignas(128) float stage[2][512];
  __shared__ alignas(8) uint64_t full[2];
  if (threadIdx.x != 0) return;
  cuda::ptx::mbarrier_init(&full[0], 1);
  cuda::ptx::mbarrier_init(&full[1], 1);
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  for (int i = 0; i < chunks; ++i) {
    const int s = i & 1;
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &full[s], 2048);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, stage[s], src + i * 512, 2048,  // expect: bulk-store-reuse
                             &full[s]);
    while (!cuda::ptx::mbarrier_try_wait_parity(&full[s], (i >> 1) & 1)) {
    }
    cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, dst + i * 512, stage[s], 2048);
    cuda::ptx::cp_async_bulk_commit_group();
    cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<kLeave>());
  }
  cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
}
__global__ void ring_refill_leaves_two_pending(const float* src, float* dst, int chunks) { ring<2>(src, dst, chunks); }
__global__ void ring_refill_leaves_one_pending(const float* src, float* dst, int chunks) { ring<1>(src, dst, chunks); }

// 3. Exit with a store in flight. The loop waits at its top (covering the
// back edge); the early exit and the fall-through leave the last store
// pending. Fixed: a noinline drain before every exit.
__device__ __noinline__ void drain() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
template <bool kDrain>
__device__ __forceinline__ void tiles(const float* in, float* out, const int* stop, int n) {
  __shared__ alignas(128) float buf[256];
  for (int t = 0; t < n; ++t) {
    if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    __syncthreads();
    buf[threadIdx.x] = in[t * 256 + threadIdx.x];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) bulk_store(out + t * 256, buf, 1024);  // expect-strict: bulk-store-reuse
    if (stop[t]) break;
  }
  if (kDrain && threadIdx.x == 0) drain();
}
__global__ void exit_with_store_in_flight(const float* in, float* out, const int* stop, int n) {
  tiles<false>(in, out, stop, n);
}
__global__ void exit_after_drain(const float* in, float* out, const int* stop, int n) { tiles<true>(in, out, stop, n); }

// 4. No drain anywhere (the single-tile epilogue): strict tier as well.
template <bool kDrain>
__device__ __forceinline__ void single_tile(const float* in, float* out) {
  __shared__ alignas(128) float buf[256];
  buf[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x] + 1.0f;
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, out + blockIdx.x * 256, buf, 1024);  // expect-strict: bulk-store-reuse
    cuda::ptx::cp_async_bulk_commit_group();
    if (kDrain) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
  }
}
__global__ void single_tile_no_drain(const float* in, float* out) { single_tile<false>(in, out); }
__global__ void single_tile_drained(const float* in, float* out) { single_tile<true>(in, out); }
