// proxy-war, non-tensor bulk copies, every consumer thread arrives on the
// empty barrier (count = 128). The fence must still come between each
// thread's reads and its own arrive.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/ring.cuh"

using namespace proxy_test;

#define RING_PROLOGUE                                    \
  __shared__ Ring r;                                     \
  ring_init(r, kConsumers);                              \
  if (threadIdx.x < 32) {                                \
    if (threadIdx.x == 0) ring_produce(r, src, iters);   \
    return;                                              \
  }                                                      \
  const int t = threadIdx.x - 32;                        \
  float acc = 0.f;

// Broken: every thread arrives, nobody fences.
__global__ void all_arrive_no_fence(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += ld_shared(&r.data[s][j]);
    mbar_arrive(&r.empty[s]);  // expect: proxy-war
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Broken: the fence comes after the arrive, too late.
__global__ void all_arrive_fence_after_arrive(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += ld_shared(&r.data[s][j]);
    mbar_arrive(&r.empty[s]);  // expect: proxy-war
    fence_proxy_async_cta();
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Fixed: each thread fences after its reads, then arrives.
__global__ void all_arrive_fenced(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += ld_shared(&r.data[s][j]);
    fence_proxy_async_cta();
    mbar_arrive(&r.empty[s]);
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Fixed: the consumers also write the stage (generic stores) before releasing it; fenced.
__global__ void all_arrive_writes_fenced(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    acc += r.data[s][t];
    r.data[s][t] = 0.f;
    fence_proxy_async_cta();
    mbar_arrive(&r.empty[s]);
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Broken: the same, unfenced: the generic stores race with the refill too.
__global__ void all_arrive_writes_unfenced(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    acc += r.data[s][t];
    r.data[s][t] = 0.f;
    mbar_arrive(&r.empty[s]);  // expect: proxy-war
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

// Fixed: fence.proxy.async.shared::cluster covers the CTA's own shared memory too.
__global__ void all_arrive_fence_cluster_space(const float* src, float* out, int iters) {
  RING_PROLOGUE
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    for (int j = t; j < kStageFloats; j += kConsumers) acc += ld_shared(&r.data[s][j]);
    asm volatile("fence.proxy.async.shared::cluster;" ::: "memory");
    mbar_arrive(&r.empty[s]);
  }
  out[blockIdx.x * kConsumers + t] = acc;
}
