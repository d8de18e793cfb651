// proxy-raw, wgmma operands written with generic stores: threads convert
// global fp32 data to bf16 and store the A and B tiles with st.shared, a
// barrier gathers them, then the warpgroup issues wgmma, which reads both
// tiles through the async proxy. The expectation sits on the wgmma call.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda_bf16.h>

#include "Inputs/async_copy.cuh"
#include "Inputs/wgmma.cuh"

using namespace proxy_test;

enum Placement { kNone, kWritersBeforeBarrier, kIssuerOnlyBeforeBarrier, kAllAfterBarrier };

template <Placement kFence>
__device__ __forceinline__ void mma_from_generic(const float* a, const float* b, float* out) {
  __shared__ alignas(128) __nv_bfloat16 tileA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 tileB[64 * 16];
  for (int i = threadIdx.x; i < 64 * 16; i += 128) {
    tileA[i] = __float2bfloat16(a[blockIdx.x * 1024 + i]);
    tileB[i] = __float2bfloat16(b[blockIdx.x * 1024 + i]);
  }
  if (kFence == kWritersBeforeBarrier) fence_proxy_async_cta();
  if (kFence == kIssuerOnlyBeforeBarrier && threadIdx.x == 0) fence_proxy_async_cta();
  __syncthreads();
  if (kFence == kAllAfterBarrier) fence_proxy_async_cta();
  Accum c{};
  wgmma_m64n64k16(c, smem_desc(tileA), smem_desc(tileB));
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 32 + i] = c.d[i];
}

__global__ void wgmma_generic_operands_unfenced(const float* a, const float* b, float* out) {
  mma_from_generic<kNone>(a, b, out);  // expect: proxy-raw
}

__global__ void wgmma_generic_operands_fenced(const float* a, const float* b, float* out) {
  mma_from_generic<kWritersBeforeBarrier>(a, b, out);
}

// Broken: only thread 0 fences, before the barrier.
__global__ void wgmma_generic_operands_one_fence(const float* a, const float* b, float* out) {
  mma_from_generic<kIssuerOnlyBeforeBarrier>(a, b, out);  // expect: proxy-raw
}

// Fixed: every thread of the warpgroup issues the wgmma, so each fences after the barrier.
__global__ void wgmma_generic_operands_fence_after_barrier(const float* a, const float* b, float* out) {
  mma_from_generic<kAllAfterBarrier>(a, b, out);
}

// Clean: the operands come from TMA (async proxy), and the only generic write
// before the wgmma is to a different shared array (a per-warp scratch word);
// the descriptors name the operand arrays, so nothing needs a fence.
__global__ void wgmma_tma_operands_scratch_write(const void* map, float* out) {
  __shared__ alignas(128) __nv_bfloat16 tileA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 tileB[64 * 16];
  __shared__ int scratch[4];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    mbar_init_fence();
  }
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = blockIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, 2 * sizeof(tileA));
    tma_load_2d(tileA, map, 0, blockIdx.x * 64, &full);
    tma_load_2d(tileB, map, 16, blockIdx.x * 64, &full);
  }
  mbar_wait(&full, 0);
  Accum c{};
  wgmma_m64n64k16(c, smem_desc(tileA), smem_desc(tileB));
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 32 + i] = c.d[i] + scratch[i % 4];
}
