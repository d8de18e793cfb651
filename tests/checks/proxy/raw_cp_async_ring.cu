// proxy-raw, a multi-stage cp.async ring feeding wgmma (the CUTLASS sm80-style
// multistage mainloop on sm_90, TileLang's pipelined GEMM with TMA turned
// off): the prologue fills kStages - 1 stages, one group each; every trip
// waits until at most kStages - 2 groups are pending (the oldest stage has
// landed), synchronizes the block, issues wgmma on that stage, and refills
// the stage the previous trip read. The copies of a stage complete at the
// wait_group of a later trip, so each trip needs fence.proxy.async after its
// wait (or after the barrier) and before the wgmma. The second pair peels the
// last two trips out of the loop, as TileLang's pipeline does: a fence inside
// the loop alone leaves the tail's stages unfenced.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda_bf16.h>

#include "Inputs/cp_async.cuh"
#include "Inputs/wgmma.cuh"

using namespace proxy_test;

constexpr int kStages = 3;

struct Ring {
  alignas(128) __nv_bfloat16 a[kStages][64 * 16];
  alignas(128) __nv_bfloat16 b[kStages][64 * 16];
};

__device__ __forceinline__ void load_stage(Ring& ring, int s, const int4* a, const int4* b, int k) {
  cp_async_16(&reinterpret_cast<int4*>(ring.a[s])[threadIdx.x], a + k * 128 + threadIdx.x);
  cp_async_16(&reinterpret_cast<int4*>(ring.b[s])[threadIdx.x], b + k * 128 + threadIdx.x);
}

template <bool kFence>
__device__ __forceinline__ void ring_mainloop(const int4* a, const int4* b, float* out, int iters) {
  __shared__ Ring ring;
  for (int k = 0; k < kStages - 1; ++k) {
    load_stage(ring, k, a, b, k);
    cp_async_commit();
  }
  Accum c{};
  for (int k = 0; k < iters; ++k) {
    cp_async_wait<kStages - 2>();
    __syncthreads();
    if (kFence) fence_proxy_async_cta();
    const int s = k % kStages;
    wgmma_m64n64k16(c, smem_desc(ring.a[s]), smem_desc(ring.b[s]));
    const int next = k + kStages - 1;
    if (next < iters) load_stage(ring, next % kStages, a, b, next);
    cp_async_commit();
  }
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 32 + i] = c.d[i];
}

__global__ void cp_async_ring_unfenced(const int4* a, const int4* b, float* out, int iters) {
  ring_mainloop<false>(a, b, out, iters);  // expect: proxy-raw
}

__global__ void cp_async_ring_fenced(const int4* a, const int4* b, float* out, int iters) {
  ring_mainloop<true>(a, b, out, iters);
}

// The loop runs the trips that refill a stage; the last kStages - 1 trips are
// peeled: wait_group 1 then wait_all, each followed by the barrier and wgmma.
template <bool kFenceTail>
__device__ __forceinline__ void peeled_mainloop(const int4* a, const int4* b, float* out, int iters) {
  __shared__ Ring ring;
  for (int k = 0; k < kStages - 1; ++k) {
    load_stage(ring, k, a, b, k);
    cp_async_commit();
  }
  Accum c{};
  int k = 0;
  for (; k < iters - (kStages - 1); ++k) {
    cp_async_wait<kStages - 2>();
    __syncthreads();
    fence_proxy_async_cta();
    wgmma_m64n64k16(c, smem_desc(ring.a[k % kStages]), smem_desc(ring.b[k % kStages]));
    load_stage(ring, (k + kStages - 1) % kStages, a, b, k + kStages - 1);
    cp_async_commit();
  }
  cp_async_wait<1>();
  __syncthreads();
  if (kFenceTail) fence_proxy_async_cta();
  wgmma_m64n64k16(c, smem_desc(ring.a[k % kStages]), smem_desc(ring.b[k % kStages]));
  ++k;
  cp_async_wait_all();
  __syncthreads();
  if (kFenceTail) fence_proxy_async_cta();
  wgmma_m64n64k16(c, smem_desc(ring.a[k % kStages]), smem_desc(ring.b[k % kStages]));
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 32 + i] = c.d[i];
}

// Broken: the two tail trips read stages whose copies completed after the
// loop's last fence (two sites: each tail wgmma).
__global__ void cp_async_peeled_tail_unfenced(const int4* a, const int4* b, float* out, int iters) {
  peeled_mainloop<false>(a, b, out, iters);  // expect: proxy-raw, proxy-raw
}

__global__ void cp_async_peeled_tail_fenced(const int4* a, const int4* b, float* out, int iters) {
  peeled_mainloop<true>(a, b, out, iters);
}
