// Open false positive (docs/real-code.md, "scale factors after the ring"): shape found in CUTLASS's
// FP8 GEMMs with blockwise and groupwise scaling (KernelTmaWarpSpecializedCooperativeFP8Blockwise,
// example 67; gemm_fp8_blockwise, gemm_fp8_groupwise). Per pipeline stage s the producer fills
// the operand tile at `base + s * kStageBytes` by TMA and the stage's scale factor at
// `base + kScaleOffset + 4 * s` with a 4-byte `cp.async` (Ampere-style, a generic-proxy copy)
// that completes on the same mbarrier (`cp.async.mbarrier.arrive.noinc`). Consumers read the
// scale with `ld.shared` and hand the stage back. The scale slots lie after the ring,
// [base, base + kStages * kStageBytes): TMA never overwrites them and the scale reads need no
// proxy fence. The checker once could not bound s and reported the scale read as handed to the
// refill. The twin puts the scale slots at the end of stage 0, inside the TMA tile: real.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "../proxy/Inputs/async_copy.cuh"

using namespace proxy_test;

constexpr int kStages = 4;
constexpr int kStageBytes = 16384;
constexpr int kRingBytes = kStages * kStageBytes;
constexpr int kBarrierOffset = kRingBytes;                     // full[4], empty[4]
constexpr int kScaleOffset = kBarrierOffset + 2 * kStages * 8;  // one float per stage

__device__ __forceinline__ void scale_load(float* dst, const float* src, uint64_t* full) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(dst)), "l"(src) : "memory");
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem(full)) : "memory");
}

// Warp 0 produces, warp 1 consumes: the tile goes out by a bulk store (an async-proxy read),
// scaled partial sums of the scales go to `sums`.
template <int kScales>
__device__ void scaled_pipeline(const uint8_t* tiles, const float* scales, uint8_t* dst, float* sums, int k_tiles) {
  extern __shared__ __align__(1024) uint8_t buf[];
  uint64_t* full = reinterpret_cast<uint64_t*>(buf + kBarrierOffset);
  uint64_t* empty = full + kStages;
  float* scale = reinterpret_cast<float*>(buf + kScales);
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
    for (int k = 0; k < k_tiles; ++k) {
      mbar_wait(&empty[s], phase ^ 1);
      mbar_arrive_expect_tx(&full[s], kStageBytes);
      bulk_load(buf + s * kStageBytes, tiles + size_t(k) * kStageBytes, kStageBytes, &full[s]);
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
__global__ void scales_after_ring(const uint8_t* tiles, const float* scales, uint8_t* dst, float* sums, int k_tiles) {
  scaled_pipeline<kScaleOffset>(tiles, scales, dst, sums, k_tiles);
}

// Broken twin: the scale slots are the last 16 bytes of stage 0, which TMA refills after the
// consumer's unfenced arrive (proxy-war), and which the bulk store reads after the scale
// cp.async, a generic-proxy write, completed with no proxy fence (proxy-raw).
__global__ void scales_in_stage0(const uint8_t* tiles, const float* scales, uint8_t* dst, float* sums, int k_tiles) {
  scaled_pipeline<kStageBytes - 16>(tiles, scales, dst, sums, k_tiles);  // expect: proxy-war, proxy-raw
}
