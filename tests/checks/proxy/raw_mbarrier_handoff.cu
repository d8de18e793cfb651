// proxy-raw across an mbarrier hand-off: a producer warpgroup writes the
// wgmma operand tiles with generic stores (converted from fp32), arrives on
// the stage's "full" barrier; the consumer warpgroup waits on it and issues
// wgmma, which reads the tiles through the async proxy. Either every writer
// fences before its arrive, or the consumers fence after their wait.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda_bf16.h>

#include "Inputs/async_copy.cuh"
#include "Inputs/wgmma.cuh"

using namespace proxy_test;

enum Placement { kNone, kWriters, kIssuers, kWriterLane0 };

template <Placement kFence>
__device__ __forceinline__ void convert_then_mma(const float* a, const float* b, float* out, int iters) {
  constexpr int kStages = 2;
  __shared__ alignas(128) __nv_bfloat16 tileA[kStages][64 * 16];
  __shared__ alignas(128) __nv_bfloat16 tileB[kStages][64 * 16];
  __shared__ alignas(8) uint64_t full[kStages], empty[kStages];
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 128);
      mbar_init(&empty[s], 128);
    }
    mbar_init_fence();
  }
  __syncthreads();
  const int t = threadIdx.x % 128;
  if (threadIdx.x >= 128) {  // producer warpgroup: generic writes of the operands
    for (int k = 0; k < iters; ++k) {
      int s = k % kStages;
      mbar_wait(&empty[s], ((k / kStages) & 1) ^ 1);
      for (int i = t; i < 64 * 16; i += 128) {
        tileA[s][i] = __float2bfloat16(a[k * 1024 + i]);
        tileB[s][i] = __float2bfloat16(b[k * 1024 + i]);
      }
      if (kFence == kWriters) fence_proxy_async_cta();
      if (kFence == kWriterLane0 && t % 32 == 0) fence_proxy_async_cta();
      mbar_arrive(&full[s]);
    }
    return;
  }
  Accum c{};
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&full[s], (k / kStages) & 1);
    if (kFence == kIssuers) fence_proxy_async_cta();
    wgmma_m64n64k16(c, smem_desc(tileA[s]), smem_desc(tileB[s]));
    mbar_arrive(&empty[s]);
  }
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + t) * 32 + i] = c.d[i];
}

__global__ void mbarrier_operands_unfenced(const float* a, const float* b, float* out, int iters) {
  convert_then_mma<kNone>(a, b, out, iters);  // expect: proxy-raw
}

__global__ void mbarrier_operands_writers_fence(const float* a, const float* b, float* out, int iters) {
  convert_then_mma<kWriters>(a, b, out, iters);
}

__global__ void mbarrier_operands_issuers_fence(const float* a, const float* b, float* out, int iters) {
  convert_then_mma<kIssuers>(a, b, out, iters);
}

// Broken: lane 0 of each writing warp fences; the other lanes' writes are not covered.
__global__ void mbarrier_operands_lane0_fence(const float* a, const float* b, float* out, int iters) {
  convert_then_mma<kWriterLane0>(a, b, out, iters);  // expect: proxy-raw
}
