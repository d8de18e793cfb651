// False positive once open (docs/real-code.md, shape D "scale factors after the ring", the form
// left in CUTLASS's FP8 GEMMs with blockwise and groupwise scaling, example 67): the operand tile of
// a stage is loaded by a TMA multicast, each CTA of the cluster issuing one slice at
// `base + s * kStageBytes + rank * kSliceBytes` with `rank = %cluster_ctarank`, so every CTA of the
// cluster receives the whole tile. The cluster's size is a launch attribute the PTX does not carry
// (no __cluster_dims__), so %cluster_ctarank alone is bounded only by the architecture's 16 CTAs,
// and sixteen 8 KB slices from stage 3 reach far past the ring into the scale factors. But the
// slices of one stage's tile lie inside that stage: with a stage stride of 16 KB and 8 KB
// slices the rank is 0 or 1. The scale factors after the ring are read with `ld.shared` and need
// no proxy fence; the twin puts them at the end of stage 0 (inside the second slice): real.
// A third kernel declares its cluster (.reqnctapercluster 2) and keeps the scales after the ring.
// Not handled: a producer loop that nvcc peels (a stage index that is a constant in each copy)
// gives no stage stride to bound the rank by; the rank then spans 16 slices.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "../proxy/Inputs/async_copy.cuh"

using namespace proxy_test;

constexpr int kStages = 4;
constexpr int kStageBytes = 16384;
constexpr int kSliceBytes = kStageBytes / 2;  // a 1x2 cluster: two slices per stage
constexpr int kRingBytes = kStages * kStageBytes;
constexpr int kBarrierOffset = kRingBytes;                     // full[4], empty[4]
constexpr int kScaleOffset = kBarrierOffset + 2 * kStages * 8;  // one float per stage

__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

// One slice of a 2-D tile, multicast to the CTAs of `mask` (CUTLASS's SM90_TMA_LOAD_MULTICAST).
__device__ __forceinline__ void tma_load_multicast(void* dst, const void* map, int x, int y, uint64_t* bar,
                                                   uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem(bar)), "h"(mask)
      : "memory");
}

__device__ __forceinline__ void scale_load(float* dst, const float* src, uint64_t* full) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(dst)), "l"(src) : "memory");
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem(full)) : "memory");
}

// Warp 0 produces (its slice of every stage, and the stage's scale), warp 1 consumes: the tile
// goes out by a bulk store (an async-proxy read), scaled sums of the scales go to `sums`.
template <int kScales>
__device__ void multicast_pipeline(const void* map, const float* scales, uint8_t* dst, float* sums, int k_tiles) {
  extern __shared__ __align__(1024) uint8_t buf[];
  uint64_t* full = reinterpret_cast<uint64_t*>(buf + kBarrierOffset);
  uint64_t* empty = full + kStages;
  float* scale = reinterpret_cast<float*>(buf + kScales);
  const uint32_t rank = cluster_rank();
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 2);  // the expect_tx arrive and the scale copy's arrive
      mbar_init(&empty[s], 1);
    }
    mbar_init_fence();
  }
  __syncthreads();
  int s = 0;
  uint32_t phase = 0;
  if (threadIdx.x == 0) {
#pragma unroll 1  // the stage index stays a loop counter, as in CUTLASS's producer
    for (int k = 0; k < k_tiles; ++k) {
      mbar_wait(&empty[s], phase ^ 1);
      mbar_arrive_expect_tx(&full[s], kStageBytes);
      tma_load_multicast(buf + s * kStageBytes + rank * kSliceBytes, map, k * 64, int(rank) * 64, &full[s], 0x3);
      scale_load(&scale[s], scales + k, &full[s]);
      s = s + 1 == kStages ? 0 : s + 1;
      phase ^= s == 0;
    }
  } else if (threadIdx.x == 32) {
    float acc = 0.f;
    for (int k = 0; k < k_tiles; ++k) {
      mbar_wait(&full[s], phase);
      acc += scale[s];  // generic read of this stage's scale factor
      bulk_store(dst + size_t(k) * kStageBytes, buf + s * kStageBytes, kStageBytes);
      bulk_commit();
      bulk_wait_read0();
      mbar_arrive(&empty[s]);
      s = s + 1 == kStages ? 0 : s + 1;
      phase ^= s == 0;
    }
    sums[blockIdx.x] = acc;
  }
}

// Clean: the scale slots follow the barriers, after the ring.
__global__ void multicast_scales_after_ring(const void* map, const float* scales, uint8_t* dst, float* sums,
                                            int k_tiles) {
  multicast_pipeline<kScaleOffset>(map, scales, dst, sums, k_tiles);
}

// Broken twin: the scale slots are the last 16 bytes of stage 0, in the slice the second CTA
// multicasts, which TMA refills after the consumer's unfenced arrive (proxy-war), and which the
// bulk store reads after the scale cp.async (generic proxy) completed unfenced (proxy-raw).
__global__ void multicast_scales_in_stage0(const void* map, const float* scales, uint8_t* dst, float* sums,
                                           int k_tiles) {
  multicast_pipeline<kStageBytes - 16>(map, scales, dst, sums, k_tiles);  // expect: proxy-war, proxy-raw
}

// Clean, with the cluster declared: %cluster_ctarank is below 2 by the kernel's own directive.
__global__ void __cluster_dims__(2, 1, 1)
    multicast_scales_declared_cluster(const void* map, const float* scales, uint8_t* dst, float* sums, int k_tiles) {
  multicast_pipeline<kScaleOffset>(map, scales, dst, sums, k_tiles);
}
