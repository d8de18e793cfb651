// proxy-war for the fix tests: lane 0 of warp 0 refills a 2-stage ring with
// bulk copies after waiting on `empty`; warps 1..4 read a stage with plain
// shared loads and their lane 0 hands it back, without fence.proxy.async.
#include "async_copy.cuh"

using namespace proxy_test;

constexpr int kStages = 2;
constexpr int kFloats = 1024;
constexpr uint32_t kBytes = kFloats * sizeof(float);

__global__ void ring(const float* src, float* out, int iters) {
  __shared__ alignas(128) float data[kStages][kFloats];
  __shared__ uint64_t full[kStages], empty[kStages];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 4);
    }
    mbar_init_fence();
  }
  __syncthreads();
  if (warp == 0) {
    if (lane == 0) {
      for (int k = 0; k < iters; ++k) {
        int s = k % kStages;
        mbar_wait(&empty[s], ((k / kStages) & 1) ^ 1);
        mbar_arrive_expect_tx(&full[s], kBytes);
        bulk_load(data[s], src + size_t(k) * kFloats, kBytes, &full[s]);
      }
    }
    return;
  }
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&full[s], (k / kStages) & 1);
    for (int j = threadIdx.x - 32; j < kFloats; j += 128) acc += data[s][j];
    if (lane == 0) {
      mbar_arrive(&empty[s]);
    }
  }
  out[threadIdx.x] = acc;
}
