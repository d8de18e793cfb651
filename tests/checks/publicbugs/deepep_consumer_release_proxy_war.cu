// Baseline proxy-war (generic reads of a TMA stage released by an elected
// lane), DeepEP low-latency combine:
// https://github.com/deepseek-ai/DeepEP/issues/621 (report, wrong results on
// NVL72 at batch sizes above 256), https://github.com/deepseek-ai/DeepEP/pull/642
// (fix, merged): "The data race here comes from LDS and TMA loads, so we only
// need fence.proxy.async.shared::cta; to prevent the TMA load from being
// issued before LDS has completed" -- a fence between the consumer's shared
// loads and its arrive on the stage's empty barrier, after which the
// producer's next TMA load refills the stage. (The same gap was reported in a
// derived kernel: https://github.com/NVIDIA/nccl-extensions/issues/8.) Our
// kernel: a two-stage ring, one producer thread, a consumer warp that reads
// each stage with ld.shared and releases it with an elected arrive.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/ptx>

#include <cstdint>

template <bool kFence>
__device__ __forceinline__ void combine_recv(const float* src, float* out, int chunks) {
  __shared__ alignas(128) float stage[2][256];
  __shared__ alignas(8) uint64_t full[2], empty[2];
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], 1);
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0 && lane == 0) {  // producer
    for (int i = 0; i < chunks; ++i) {
      const int s = i & 1;
      if (i >= 2) {
        while (!cuda::ptx::mbarrier_try_wait_parity(&empty[s], ((i >> 1) - 1) & 1)) {
        }
      }
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                           &full[s], 1024);
      cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, stage[s], src + i * 256, 1024,
                               &full[s]);
    }
  } else if (warp == 1) {  // consumer
    float acc = 0.f;
    for (int i = 0; i < chunks; ++i) {
      const int s = i & 1;
      while (!cuda::ptx::mbarrier_try_wait_parity(&full[s], (i >> 1) & 1)) {
      }
      for (int j = 0; j < 8; ++j) acc += stage[s][j * 32 + lane];  // decode and accumulate (LDS)
      if (kFence) cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
      __syncwarp();
      if (lane == 0) (void)cuda::ptx::mbarrier_arrive(&empty[s]);  // expect: proxy-war
    }
    out[blockIdx.x * 32 + lane] = acc;
  }
}

__global__ void combine_release_without_proxy_fence(const float* src, float* out, int chunks) {
  combine_recv<false>(src, out, chunks);
}
__global__ void combine_release_after_proxy_fence(const float* src, float* out, int chunks) {
  combine_recv<true>(src, out, chunks);
}
