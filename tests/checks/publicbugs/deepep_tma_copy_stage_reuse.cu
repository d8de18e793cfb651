// Shape 7 (bulk stores: the source refilled too early), DeepEP V2 PP
// send/recv: https://github.com/deepseek-ai/DeepEP/issues/657 (report),
// https://github.com/deepseek-ai/DeepEP/pull/660 (proposed fix, closed as
// "addressed in #674"). A two-stage TMA copy loop, one thread: for
// iteration i it loads a chunk into stage i % 2, waits for it, stores the
// stage to global memory with a TMA store and commits the group, then
// prefetches iteration i + 2 into the same stage. Before the prefetch it
// waited with tma_store_wait<kNumStages - 1>() = cp.async.bulk.wait_group 1:
// "group[A] (which reads from stage0_smem) is the only pending group, so
// wait_group 1 returns immediately" and the TMA load overwrites the stage
// the store is still reading. The fix waits with wait_group 0. Our kernel:
// cuda::ptx bulk copies, a sized two-stage __shared__ array, one issuing
// thread, a loop.
// bulk-store-reuse: a rewrite that the store dominates at the store's own
// source address hits its buffer whatever the ring's depth (BulkStoreReuse.cpp,
// sameAddress).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/ptx>

#include <cstdint>

template <int kPendingAllowed>
__device__ __forceinline__ void tma_copy(const float* src, float* dst, int chunks) {
  constexpr int kStages = 2, kFloats = 1024;
  __shared__ alignas(128) float stage[kStages][kFloats];
  __shared__ alignas(8) uint64_t full[kStages];
  if (threadIdx.x != 0) return;
  for (int s = 0; s < kStages; ++s) {
    cuda::ptx::mbarrier_init(&full[s], 1);
  }
  cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  for (int s = 0; s < kStages && s < chunks; ++s) {
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &full[s], kFloats * 4);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, stage[s], src + s * kFloats,
                             kFloats * 4, &full[s]);
  }
  for (int i = 0; i < chunks; ++i) {
    const int s = i % kStages;
    while (!cuda::ptx::mbarrier_try_wait_parity(&full[s], (i / kStages) & 1)) {
    }
    cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, dst + i * kFloats, stage[s],
                             kFloats * 4);
    cuda::ptx::cp_async_bulk_commit_group();
    if (i + kStages < chunks) {  // prefetch into the stage just stored from
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<kPendingAllowed>());
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                           &full[s], kFloats * 4);
      cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, stage[s],  // expect: bulk-store-reuse
                               src + (i + kStages) * kFloats, kFloats * 4, &full[s]);
    }
  }
  cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
}

__global__ void tma_copy_wait_one(const float* src, float* dst, int chunks) { tma_copy<1>(src, dst, chunks); }
__global__ void tma_copy_wait_zero(const float* src, float* dst, int chunks) { tma_copy<0>(src, dst, chunks); }
