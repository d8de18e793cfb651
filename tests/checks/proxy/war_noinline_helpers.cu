// proxy-war across __noinline__ helpers: the stage is read in one .func
// (through a generic pointer) and released in another; the fence, when there
// is one, lives in yet another helper. The checker follows the calls.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include "Inputs/ring.cuh"

using namespace proxy_test;

__device__ __noinline__ float read_stage(const float* stage, int t) {
  float acc = 0.f;
  for (int j = t; j < kStageFloats; j += kConsumers) acc += stage[j];
  return acc;
}

__device__ __noinline__ void release_stage(uint64_t* empty, int lane) {
  if (lane == 0) mbar_arrive(empty);
}

__device__ __noinline__ void fence_stage() { fence_proxy_async_cta(); }

template <bool kFenced>
__device__ __forceinline__ void consume(const float* src, float* out, int iters) {
  __shared__ Ring r;
  ring_init(r, kConsumerWarps);
  const int lane = threadIdx.x % 32;
  if (threadIdx.x < 32) {
    if (lane == 0) ring_produce(r, src, iters);
    return;
  }
  const int t = threadIdx.x - 32;
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&r.full[s], (k / kStages) & 1);
    acc += read_stage(r.data[s], t);
    if (kFenced) fence_stage();
    release_stage(&r.empty[s], lane);
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

__global__ void noinline_no_fence(const float* src, float* out, int iters) {
  consume<false>(src, out, iters);  // expect: proxy-war
}

__global__ void noinline_fenced(const float* src, float* out, int iters) { consume<true>(src, out, iters); }
