// proxy-war, non-tensor bulk copies (cp.async.bulk ... mbarrier::complete_tx),
// consumers read the stage with plain ld.shared and ONE elected lane per warp
// releases it (empty barrier count = number of consumer warps). Broken kernels
// carry the proxy-war expectation on the release (the hand-off); fixed twins are
// silent.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/ring.cuh"

using namespace proxy_test;

#define RING_PROLOGUE                                    \
  __shared__ Ring r;                                     \
  ring_init(r, kConsumerWarps);                          \
  const int warp = threadIdx.x / 32;                     \
  const int lane = threadIdx.x % 32;                     \
  if (warp == 0) {                                       \
    if (lane == 0) ring_produce(r, src, iters);          \
    return;                                              \
  }                                                      \
  const int t = threadIdx.x - 32;                        \
  float acc = 0.f;

// Broken: no fence at all.
__global__ void elected_no_fence(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += r.data[s][j];
    if (lane == 0) mbar_arrive(&r.empty[s]);  // expect: proxy-war
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Broken: lane 0 fences for itself only; lanes 1..31 read unfenced.
__global__ void elected_fence_lane0(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += r.data[s][j];
    if (lane == 0) {
      fence_proxy_async_cta();
      mbar_arrive(&r.empty[s]);  // expect: proxy-war
    }
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Broken: the fence is executed by the lane elect.sync picks, as cute::elect_one_sync().
__global__ void elected_fence_elect_sync(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += r.data[s][j];
    if (elect_one()) {
      fence_proxy_async_cta();
      mbar_arrive(&r.empty[s]);  // expect: proxy-war
    }
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Broken: every thread fences, but before its reads.
__global__ void elected_fence_before_reads(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    fence_proxy_async_cta();
    for (int j = t; j < kStageFloats; j += kConsumers) acc += r.data[s][j];
    if (lane == 0) mbar_arrive(&r.empty[s]);  // expect: proxy-war
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Broken: the fence is on one branch only.
__global__ void elected_fence_one_branch(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += r.data[s][j];
    if (acc > 0.f) fence_proxy_async_cta();
    if (lane == 0) mbar_arrive(&r.empty[s]);  // expect: proxy-war
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Broken: fence.proxy.async.global does not cover shared memory.
__global__ void elected_fence_global_only(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += r.data[s][j];
    fence_proxy_async_global();
    if (lane == 0) mbar_arrive(&r.empty[s]);  // expect: proxy-war
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Fixed: every reader fences after its reads, then lane 0 releases.
__global__ void elected_fence_all(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += r.data[s][j];
    fence_proxy_async_cta();
    if (lane == 0) mbar_arrive(&r.empty[s]);
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Fixed: every reader fences, __syncwarp, then lane 0 releases.
__global__ void elected_fence_all_syncwarp(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += r.data[s][j];
    fence_proxy_async_cta();
    __syncwarp();
    if (lane == 0) mbar_arrive(&r.empty[s]);
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Fixed: the plain fence.proxy.async (all state spaces) also counts.
__global__ void elected_fence_all_spaces(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += r.data[s][j];
    asm volatile("fence.proxy.async;" ::: "memory");
    if (elect_one()) mbar_arrive(&r.empty[s]);
  }
  out[blockIdx.x * kConsumers + t] = acc;
}
