// Issue 11, shape 1 (one dynamic shared buffer, many objects), in the form
// Triton's layouts give it (corpus 7, tt_attention_bwd_sm90): a scratch tile
// at the start of the buffer is written at offsets built by or-ing masked,
// shifted thread-index bits (`(t & 12) << 10 | (t & 3) << 5 | (t & 12) << 1 |
// (t << 3) & 896`, at most 0x33F8 = 13304) and at the neighbouring offset
// `x ^ 24`; the wgmma operands, loaded by TMA, follow at 16384. Bounded by the
// bits the or may set, the scratch ends at 13312 and no generic write reaches
// the operands (bounded by the next power of two it would reach 16391, into
// A). With the scratch moved up by 4096 it does reach A: proxy-raw.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda_bf16.h>

#include "../proxy/Inputs/async_copy.cuh"
#include "../proxy/Inputs/wgmma.cuh"

using namespace proxy_test;

constexpr unsigned kOperands = 16384, kTile = 64 * 16 * 2;

template <unsigned kScratch>
__device__ __forceinline__ void scratch_then_mma(const void* map, const float2* in, float* out) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __nv_bfloat16* tileA = reinterpret_cast<__nv_bfloat16*>(smem + kOperands);
  __nv_bfloat16* tileB = reinterpret_cast<__nv_bfloat16*>(smem + kOperands + kTile);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kOperands + 2 * kTile);
  const unsigned t = threadIdx.x;
  if (t == 0) {
    mbar_init(full, 1);
    mbar_init_fence();
  }
  __syncthreads();
  if (t == 0) {
    mbar_arrive_expect_tx(full, 2 * kTile);
    tma_load_2d(tileA, map, 0, blockIdx.x * 64, full);
    tma_load_2d(tileB, map, 16, blockIdx.x * 64, full);
  }
  const unsigned x = ((t & 12) << 10) | ((t & 3) << 5) | ((t & 12) << 1) | ((t << 3) & 896);
  *reinterpret_cast<float2*>(smem + kScratch + x) = in[t];
  *reinterpret_cast<float2*>(smem + kScratch + (x ^ 24)) = in[t + 128];
  mbar_wait(full, 0);
  __syncthreads();
  Accum c{};
  wgmma_m64n64k16(c, smem_desc(tileA), smem_desc(tileB));
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + t) * 32 + i] = c.d[i] + smem[kScratch + (t * 8 + i) % 13312];
}

// Clean: the scratch [0, 13312) ends before the operands.
__global__ void __launch_bounds__(128) scratch_before_operands(const void* map, const float2* in, float* out) {
  scratch_then_mma<0>(map, in, out);
}

// Broken: the scratch [4096, 17408) overlaps A.
__global__ void __launch_bounds__(128) scratch_into_operands(const void* map, const float2* in, float* out) {
  scratch_then_mma<4096>(map, in, out);  // expect: proxy-raw
}
