// proxy-war, the producer-side placement: the consumers do not fence, the
// producer fences once per stage. That counts only after its wait on the
// empty barrier (it then orders the consumers' released reads before the
// copy); a fence before the wait orders nothing the consumers did.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/ring.cuh"

using namespace proxy_test;

template <bool kFenceAfterWait, bool kFenceBeforeWait>
__device__ __forceinline__ void produce_with_fence(Ring& r, const float* src, int iters) {
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    uint32_t phase = (k / kStages) & 1;
    if (kFenceBeforeWait) fence_proxy_async_cta();
    mbar_wait(&r.empty[s], phase ^ 1);
    if (kFenceAfterWait) fence_proxy_async_cta();
    mbar_arrive_expect_tx(&r.full[s], kStageBytes);
    bulk_load(r.data[s], src + size_t(k) * kStageFloats, kStageBytes, &r.full[s]);
  }
}

// Fixed: producer fences between its wait and the copy.
__global__ void producer_fence_after_wait(const float* src, float* out, int iters) {
  __shared__ Ring r;
  ring_init(r, kConsumerWarps);
  const int lane = threadIdx.x % 32;
  if (threadIdx.x < 32) {
    if (lane == 0) produce_with_fence<true, false>(r, src, iters);
    return;
  }
  const int t = threadIdx.x - 32;
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += r.data[s][j];
    __syncwarp();
    if (lane == 0) mbar_arrive(&r.empty[s]);
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Broken: producer fences before its wait.
__global__ void producer_fence_before_wait(const float* src, float* out, int iters) {
  __shared__ Ring r;
  ring_init(r, kConsumerWarps);
  const int lane = threadIdx.x % 32;
  if (threadIdx.x < 32) {
    if (lane == 0) produce_with_fence<false, true>(r, src, iters);
    return;
  }
  const int t = threadIdx.x - 32;
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += r.data[s][j];
    __syncwarp();
    if (lane == 0) mbar_arrive(&r.empty[s]);  // expect: proxy-war
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Fixed: one loop, every thread consumes, thread 0 also refills; the refill is
// fenced by thread 0 after its wait on the empty barrier.
__global__ void single_loop_producer_fence(const float* src, float* out, int iters) {
  __shared__ Ring r;
  ring_init(r, blockDim.x);
  const int t = threadIdx.x;
  float acc = 0.f;
  if (t == 0)
    for (int s = 0; s < kStages && s < iters; ++s) {
      mbar_arrive_expect_tx(&r.full[s], kStageBytes);
      bulk_load(r.data[s], src + size_t(s) * kStageFloats, kStageBytes, &r.full[s]);
    }
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    uint32_t phase = (k / kStages) & 1;
    mbar_wait(&r.full[s], phase);
    acc += r.data[s][t];
    mbar_arrive(&r.empty[s]);
    if (t == 0 && k + kStages < iters) {
      mbar_wait(&r.empty[s], phase);
      fence_proxy_async_cta();
      mbar_arrive_expect_tx(&r.full[s], kStageBytes);
      bulk_load(r.data[s], src + size_t(k + kStages) * kStageFloats, kStageBytes, &r.full[s]);
    }
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}

// Broken: the same single loop without the fence.
__global__ void single_loop_no_fence(const float* src, float* out, int iters) {
  __shared__ Ring r;
  ring_init(r, blockDim.x);
  const int t = threadIdx.x;
  float acc = 0.f;
  if (t == 0)
    for (int s = 0; s < kStages && s < iters; ++s) {
      mbar_arrive_expect_tx(&r.full[s], kStageBytes);
      bulk_load(r.data[s], src + size_t(s) * kStageFloats, kStageBytes, &r.full[s]);
    }
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    uint32_t phase = (k / kStages) & 1;
    mbar_wait(&r.full[s], phase);
    acc += r.data[s][t];
    mbar_arrive(&r.empty[s]);  // expect: proxy-war
    if (t == 0 && k + kStages < iters) {
      mbar_wait(&r.empty[s], phase);
      mbar_arrive_expect_tx(&r.full[s], kStageBytes);
      bulk_load(r.data[s], src + size_t(k + kStages) * kStageFloats, kStageBytes, &r.full[s]);
    }
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}
