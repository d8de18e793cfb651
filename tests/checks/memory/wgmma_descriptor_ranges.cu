// Issue 11, shape 3: wgmma operands named by 64-bit shared-memory descriptors
// whose start-address field (bits 0-13, address >> 4) is built with
// shr/and/or/add (a CuTe-style bitfield union, advanced per k-slice by adding
// to its low word, and a hand-written mask-and-shift form). One dynamic shared
// buffer holds the A and B stage rings (TMA-filled), then a scale-factor
// buffer that the consumers write with plain stores and read with ld.shared,
// then the mbarriers. The scale writes are not operands: no proxy-raw. A
// plain write into an operand stage (zero-filling a partial tile) before the
// wgmma needs a fence.proxy.async (proxy-raw at the wgmma; the same write is
// also overwritten by the next TMA refill of the stage: proxy-war at the release).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda_bf16.h>

#include "Inputs/sm90_pipeline.cuh"

using namespace mt;

constexpr int kStages = 3;
constexpr uint32_t kTileBytes = 64 * 64 * 2;                 // bf16 64x64 per operand per stage
constexpr uint32_t kAOffset = 0;                             // A ring [0, 24576)
constexpr uint32_t kBOffset = kStages * kTileBytes;          // B ring [24576, 49152)
constexpr uint32_t kScaleOffset = 2 * kStages * kTileBytes;  // float[128]  [49152, 49664)
constexpr uint32_t kBarOffset = kScaleOffset + 512;          // full[3], empty[3]

enum DescForm { kCuteUnion, kMaskShift };
enum Write { kScaleOnly, kOperandUnfenced, kOperandFenced };

__device__ __forceinline__ uint64_t mask_shift_desc(const void* p) {
  uint64_t addr = cast_smem_ptr_to_uint(p);
  return ((addr & 0x3FFFF) >> 4) | (uint64_t(128 >> 4) << 16) | (uint64_t(256 >> 4) << 32);
}

template <DescForm kForm>
__device__ __forceinline__ uint64_t desc_of(const uint8_t* tile, int kslice) {
  if constexpr (kForm == kCuteUnion) return desc_advance(make_gmma_desc(tile), kslice * 64 * 16 * 2);
  else return mask_shift_desc(tile + kslice * 64 * 16 * 2);
}

template <DescForm kForm, Write kWrite>
__device__ __forceinline__ void gemm(const void* map_a, const void* map_b, const float* scale_src, float* out,
                                     int ktiles) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* a = smem + kAOffset;
  uint8_t* b = smem + kBOffset;
  float* scales = reinterpret_cast<float*>(smem + kScaleOffset);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kBarOffset);
  uint64_t* empty = full + kStages;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, t = threadIdx.x;
  if (t == 0) {
    for (int s = 0; s < kStages; ++s) {
      ClusterBarrier::init(full + s, 1);
      ClusterBarrier::init(empty + s, 4);
    }
    fence_barrier_init();
  }
  __syncthreads();
  if (warp == 4) {
    if (elect_one_sync()) {
      PipelineState<kStages> ps;
      for (int k = 0; k < ktiles; ++k, ++ps) {
        ClusterBarrier::wait(empty + ps.index(), ps.phase() ^ 1);
        ClusterTransactionBarrier::arrive_and_expect_tx(full + ps.index(), 2 * kTileBytes);
        SM90_TMA_LOAD_2D::copy(map_a, full + ps.index(), a + ps.index() * kTileBytes, 0, k * 64);
        SM90_TMA_LOAD_2D::copy(map_b, full + ps.index(), b + ps.index() * kTileBytes, 0, k * 64);
      }
    }
    return;
  }
  Accum c{};
  float total = 0.f;
  PipelineState<kStages> ps;
  for (int k = 0; k < ktiles; ++k, ++ps) {
    const int s = ps.index();
    // Per-k scale factors: written with plain stores, read back with ld.shared.
    scales[t] = scale_src[k * 128 + t];
    ClusterBarrier::wait(full + s, ps.phase());
    if (kWrite != kScaleOnly && t < 64)  // zero the tail rows of a ragged tile in place
      reinterpret_cast<float*>(a + s * kTileBytes)[2048 + t] = 0.f;
    if (kWrite == kOperandFenced) fence_view_async_shared();
    asm volatile("bar.sync 1, 128;" ::: "memory");
    total += scales[(t + 1) % 128];
    warpgroup_arrive();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks)
      SM90_64x64x16_F32BF16BF16_SS::fma(desc_of<kForm>(a + s * kTileBytes, ks), desc_of<kForm>(b + s * kTileBytes, ks),
                                        c);
    warpgroup_commit_batch();
    warpgroup_wait0();
    asm volatile("bar.sync 1, 128;" ::: "memory");
    if (lane == 0) ClusterBarrier::arrive(empty + s);
  }
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + t) * 32 + i] = c.d[i] * total;
}

// Clean: the only generic writes go to the scale buffer.
__global__ void desc_cute_scales_clean(const void* ma, const void* mb, const float* sc, float* out, int kt) {
  gemm<kCuteUnion, kScaleOnly>(ma, mb, sc, out, kt);
}
__global__ void desc_mask_scales_clean(const void* ma, const void* mb, const float* sc, float* out, int kt) {
  gemm<kMaskShift, kScaleOnly>(ma, mb, sc, out, kt);
}

// Broken: a plain write into the A stage, then wgmma reads it, no fence.
__global__ void desc_cute_operand_unfenced(const void* ma, const void* mb, const float* sc, float* out, int kt) {
  gemm<kCuteUnion, kOperandUnfenced>(ma, mb, sc, out, kt);  // expect: proxy-raw, proxy-war
}
__global__ void desc_mask_operand_unfenced(const void* ma, const void* mb, const float* sc, float* out, int kt) {
  gemm<kMaskShift, kOperandUnfenced>(ma, mb, sc, out, kt);  // expect: proxy-raw, proxy-war
}

// Fixed: the writers fence before the barrier that gathers the writes.
__global__ void desc_cute_operand_fenced(const void* ma, const void* mb, const float* sc, float* out, int kt) {
  gemm<kCuteUnion, kOperandFenced>(ma, mb, sc, out, kt);
}
