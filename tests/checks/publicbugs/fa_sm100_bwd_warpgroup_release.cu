// Shape 3 and 6 (a per-warp synchronization before a release of tensor-memory
// work done by a warpgroup), FlashAttention SM100 backward (CuTe DSL):
// https://github.com/Dao-AILab/flash-attention/pull/2033 (merged): "Sync
// compute warpgroup prior to releasing LSE (for tmem store fence) and release
// Psum + producer commit on dS (for tmem store fence and async smem fence);
// both were causing errors. Sync compute warpgroup (not just sync warp) after
// fence_view_async_tmem_load in loop computing dS." Before the fix one thread
// released the tensor memory to the MMA warp after only its own warp was
// synchronized; the other warps of the warpgroup could still have tcgen05
// stores in flight. After the fix the warpgroup meets at a barrier first. Our
// kernel (sm_100a): four warps store a column block each with tcgen05.st and
// wait for it (fence_view_async_tmem_store), fence::before_thread_sync; then
// __syncwarp() (broken) or a 128-thread named barrier (fixed); thread 0
// arrives on the barrier the MMA warp waits on before reading those columns.
// Check: elected-arrive (tcgen05.st is data the arrive releases; the
// __syncwarp() gathers thread 0's own warp only).
// RUN: %fenceline check --arch sm_100a --verify %s
#include <cuda/ptx>

#include <cstdint>

template <bool kWarpgroupSync>
__device__ __forceinline__ void release_lse(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, const float* lse) {
  __shared__ alignas(8) uint64_t lse_ready;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&lse_ready, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  const unsigned warp = threadIdx.x / 32;
  if (warp < 4) {
    uint32_t v[1] = {__float_as_uint(lse[blockIdx.x * 128 + threadIdx.x])};
    cuda::ptx::tcgen05_st_32x32b(tmem + (warp * 32 << 16), v);
    cuda::ptx::tcgen05_wait_st();  // fence_view_async_tmem_store
    cuda::ptx::tcgen05_fence_before_thread_sync();
    if (kWarpgroupSync) asm volatile("bar.sync 2, 128;" ::: "memory");
    else __syncwarp();
    if (threadIdx.x == 0) (void)cuda::ptx::mbarrier_arrive(&lse_ready);  // expect: elected-arrive
  } else if (threadIdx.x == 128) {
    while (!cuda::ptx::mbarrier_try_wait_parity(&lse_ready, 0)) {
    }
    cuda::ptx::tcgen05_fence_after_thread_sync();
    cuda::ptx::tcgen05_mma(cuda::ptx::kind_f16, cuda::ptx::cta_group_1, tmem, a, b, idesc, true);
  }
}

__global__ void lse_release_after_syncwarp(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, const float* lse) {
  release_lse<false>(tmem, a, b, idesc, lse);
}
__global__ void lse_release_after_warpgroup_barrier(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc,
                                                    const float* lse) {
  release_lse<true>(tmem, a, b, idesc, lse);
}
