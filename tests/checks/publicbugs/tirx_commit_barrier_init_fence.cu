// Shape 8 (barriers completed by tcgen05.commit need the init fence), TIRx
// kernels, NVFP4 GEMM: https://github.com/mlc-ai/TIRx-kernels/pull/9
// (merged): "issue fence.mbarrier_init from the same mbar_leader that
// initializes the NVFP4 pipeline barriers; keep the existing cluster
// release/acquire publication path unchanged before any barrier first-use".
// Before the fix the fence was issued by a thread other than the barrier
// leader. Our kernel (sm_100a): a two-CTA cluster; a leader thread (thread 32,
// warp 1) initializes the "accumulator full" barrier, which the MMA thread of
// CTA 0 completes for both CTAs with a multicast tcgen05.commit; broken, the
// fence runs on thread 0; fixed, on the leader. A release/acquire cluster
// barrier publishes the init in both.
// RUN: %fenceline check --arch sm_100a --verify %s
#include <cuda/ptx>

#include <cstdint>

template <bool kLeaderFences>
__device__ __forceinline__ void nvfp4_tile(uint64_t a_desc, uint64_t b_desc, uint32_t idesc, float* out) {
  __shared__ uint32_t tmem_slot;
  __shared__ alignas(8) uint64_t acc_full;
  const bool leader = threadIdx.x == 32;
  if (leader) {
    cuda::ptx::mbarrier_init(&acc_full, 1);  // expect: mbarrier-init-fence
    if (kLeaderFences) cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  if (!kLeaderFences && threadIdx.x == 0) cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  if (threadIdx.x < 32) {
    cuda::ptx::tcgen05_alloc(cuda::ptx::cta_group_1, &tmem_slot, 128);
    cuda::ptx::tcgen05_relinquish_alloc_permit(cuda::ptx::cta_group_1);
  }
  cuda::ptx::tcgen05_fence_before_thread_sync();
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = tmem_slot;
  if (threadIdx.x == 0 && cuda::ptx::get_sreg_cluster_ctarank() == 0) {
    cuda::ptx::tcgen05_mma(cuda::ptx::kind_f16, cuda::ptx::cta_group_1, tmem, a_desc, b_desc, idesc, false);
    cuda::ptx::tcgen05_commit_multicast(cuda::ptx::cta_group_1, &acc_full, uint16_t(3));
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&acc_full, 0)) {
  }
  cuda::ptx::tcgen05_fence_after_thread_sync();
  if (threadIdx.x < 128) {
    uint32_t v[1];
    cuda::ptx::tcgen05_ld_32x32b(v, tmem + ((threadIdx.x / 32) * 32 << 16));
    cuda::ptx::tcgen05_wait_ld();
    out[threadIdx.x] = __uint_as_float(v[0]);
  }
  cuda::ptx::tcgen05_fence_before_thread_sync();
  cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
  cuda::ptx::tcgen05_fence_after_thread_sync();
  if (threadIdx.x < 32) cuda::ptx::tcgen05_dealloc(cuda::ptx::cta_group_1, tmem, 128);
}

__global__ void __cluster_dims__(2, 1, 1) commit_barrier_fenced_by_thread0(uint64_t a, uint64_t b, uint32_t idesc,
                                                                           float* out) {
  nvfp4_tile<false>(a, b, idesc, out);
}
__global__ void __cluster_dims__(2, 1, 1) commit_barrier_fenced_by_leader(uint64_t a, uint64_t b, uint32_t idesc,
                                                                          float* out) {
  nvfp4_tile<true>(a, b, idesc, out);
}
