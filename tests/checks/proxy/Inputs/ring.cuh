// A warp-specialized stage ring shared by the proxy-war test kernels: warp 0
// lane 0 produces (waits on `empty[s]`, then refills stage s with a bulk copy
// completing on `full[s]`), warps 1..4 consume (wait on `full[s]`, read the
// stage with generic loads, release it through `empty[s]`). The consumer side
// differs per kernel; that is where the fences go or are missing.
#pragma once

#include "async_copy.cuh"

namespace proxy_test {

constexpr int kStages = 4;
constexpr int kStageFloats = 1024;
constexpr uint32_t kStageBytes = kStageFloats * sizeof(float);
constexpr int kConsumerWarps = 4;
constexpr int kConsumers = kConsumerWarps * 32;

struct Ring {
  alignas(128) float data[kStages][kStageFloats];
  alignas(8) uint64_t full[kStages];
  alignas(8) uint64_t empty[kStages];
};

__device__ __forceinline__ void ring_init(Ring& r, uint32_t emptyArrivals) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&r.full[s], 1);
      mbar_init(&r.empty[s], emptyArrivals);
    }
    mbar_init_fence();
  }
  __syncthreads();
}

// The producer: one thread, no fence of its own.
__device__ __forceinline__ void ring_produce(Ring& r, const float* src, int iters) {
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    uint32_t phase = (k / kStages) & 1;
    mbar_wait(&r.empty[s], phase ^ 1);
    mbar_arrive_expect_tx(&r.full[s], kStageBytes);
    bulk_load(r.data[s], src + size_t(k) * kStageFloats, kStageBytes, &r.full[s]);
  }
}

}  // namespace proxy_test
