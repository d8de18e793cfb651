// proxy-war in mainloop shapes: stages unrolled with #pragma unroll (one
// finding per source site, not per unrolled copy), a kernel whose epilogue
// has a correct TMA-store fence but whose mainloop has none, and consumers
// that read the stages only through wgmma (async proxy on both sides: no
// fence needed).
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/ring.cuh"
#include "Inputs/wgmma.cuh"

using namespace proxy_test;

template <bool kFenced>
__device__ __forceinline__ void unrolled(const float* src, float* out, int rounds) {
  __shared__ Ring r;
  ring_init(r, kConsumerWarps);
  const int lane = threadIdx.x % 32;
  if (threadIdx.x < 32) {
    if (lane == 0)
      for (int k = 0; k < rounds; ++k) {
#pragma unroll
        for (int s = 0; s < kStages; ++s) {
          mbar_wait(&r.empty[s], (k & 1) ^ 1);
          mbar_arrive_expect_tx(&r.full[s], kStageBytes);
          bulk_load(r.data[s], src + size_t(k * kStages + s) * kStageFloats, kStageBytes, &r.full[s]);
        }
      }
    return;
  }
  const int t = threadIdx.x - 32;
  float acc = 0.f;
  for (int k = 0; k < rounds; ++k) {
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      mbar_wait(&r.full[s], k & 1);
      acc += r.data[s][t] * r.data[s][t + kConsumers];
      if (kFenced) fence_proxy_async_cta();
      if (lane == 0) mbar_arrive(&r.empty[s]);
    }
  }
  out[blockIdx.x * kConsumers + t] = acc;
}

__global__ void unrolled_no_fence(const float* src, float* out, int rounds) {
  unrolled<false>(src, out, rounds);  // expect: proxy-war
}

__global__ void unrolled_fenced(const float* src, float* out, int rounds) { unrolled<true>(src, out, rounds); }

// The epilogue's fence (before its TMA store) does not cover the mainloop.
__global__ void epilogue_fence_only(const float* src, const void* out_map, int iters) {
  __shared__ Ring r;
  __shared__ alignas(128) float staging[kConsumers];
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
    acc += r.data[s][t];
    if (lane == 0) mbar_arrive(&r.empty[s]);  // expect: proxy-war
  }
  staging[t] = acc;
  fence_proxy_async_cta();
  asm volatile("bar.sync 1, 128;" ::: "memory");
  if (t == 0) {
    tma_store_2d(out_map, blockIdx.x * kConsumers, 0, staging);
    bulk_commit();
    bulk_wait_read0();
  }
}

// Consumers read the tiles only through wgmma: no generic access, no finding.
__global__ void wgmma_only_consumers(const void* tmap, float* out, int iters) {
  constexpr int kTileBytes = 64 * 16 * 2;
  __shared__ alignas(128) uint8_t tileA[kStages][kTileBytes];
  __shared__ alignas(128) uint8_t tileB[kStages][kTileBytes];
  __shared__ alignas(8) uint64_t full[kStages], empty[kStages];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 1);
    }
    mbar_init_fence();
  }
  __syncthreads();
  if (warp == 4) {
    if (lane == 0)
      for (int k = 0; k < iters; ++k) {
        int s = k % kStages;
        mbar_wait(&empty[s], ((k / kStages) & 1) ^ 1);
        mbar_arrive_expect_tx(&full[s], 2 * kTileBytes);
        tma_load_2d(tileA[s], tmap, 0, k * 64, &full[s]);
        tma_load_2d(tileB[s], tmap, 16, k * 64, &full[s]);
      }
    return;
  }
  Accum c{};
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&full[s], (k / kStages) & 1);
    wgmma_m64n64k16(c, smem_desc(tileA[s]), smem_desc(tileB[s]));
    if (threadIdx.x == 0) mbar_arrive(&empty[s]);
  }
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 32 + i] = c.d[i];
}
