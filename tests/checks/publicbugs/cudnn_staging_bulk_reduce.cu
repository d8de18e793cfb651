// Shape 7 (bulk stores: other threads overwrite the source), cuDNN frontend
// SM90 DSA indexer backward: https://github.com/NVIDIA/cudnn-frontend/pull/1049
// (merged). "Multiple threads write each staging row, while an individual
// thread issues the bulk reduction for that row. The per-thread bulk wait
// does not prevent other threads from overwriting staging before every prior
// asynchronous reader finishes. The async-proxy fence alone also does not
// make each reduction launcher wait for all staging producers." The fix adds
// a warpgroup barrier after the bulk read wait and another after the staging
// stores and the proxy fence. Our kernel: one warpgroup, a staging tile of 8
// rows in shared memory written by all 128 threads per block of top-k, row r
// reduced into global memory by thread r with cp.reduce.async.bulk, a named
// barrier as the warpgroup barrier.
// Both hazards are found: the reduction is issued under a branch on the
// thread index that the staging writes are not under, and no barrier, mbarrier
// or warp synchronization lies between the writers and the launcher (proxy-raw:
// the writers' own proxy fence orders only their own writes) nor between the
// launch and the next block's writes (bulk-store-reuse: the launcher's
// wait_group.read holds only itself back). README, "rules needed", shape 7.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

template <bool kBarriers>
__device__ __forceinline__ void dk_blocks(const float* grad, float* dk, const int* topk, int blocks) {
  __shared__ alignas(128) float staging[8][64];
  const unsigned t = threadIdx.x;  // 128 threads: one warpgroup
  for (int b = 0; b < blocks; ++b) {
    for (int i = t; i < 8 * 64; i += 128) staging[i / 64][i % 64] = grad[(b * 8 + i / 64) * 64 + i % 64];  // expect: bulk-store-reuse
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (kBarriers) asm volatile("bar.sync 1, 128;" ::: "memory");  // every producer before the launchers
    if (t < 8) {
      float* dst = dk + topk[b * 8 + t] * 64;
      const uint32_t row = smem(staging[t]);
      asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], 256;" ::"l"(dst), "r"(row) : "memory");  // expect: proxy-raw
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    if (kBarriers) asm volatile("bar.sync 1, 128;" ::: "memory");  // every launcher's read wait before reuse
  }
}

__global__ void __launch_bounds__(128) dk_staging_unsynchronized(const float* grad, float* dk, const int* topk,
                                                                 int blocks) {
  dk_blocks<false>(grad, dk, topk, blocks);
}
__global__ void __launch_bounds__(128) dk_staging_warpgroup_barriers(const float* grad, float* dk, const int* topk,
                                                                     int blocks) {
  dk_blocks<true>(grad, dk, topk, blocks);
}
