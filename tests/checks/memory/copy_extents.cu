// Issue 11, shape 4: the extent of each stage's copy. Every stage of the
// ring is [tile | header]: the producer writes a small per-stage header (the
// k index and a scale) with plain stores right after the tile, then refills
// the tile with one async copy. The copy's extent is the `expect_tx` byte count
// of its barrier (TMA tile load; split evenly when the tile comes as two
// halves through one tensor map: a map fixes the box, so each half moves
// half the count), or its size operand (bulk copy; a constant, or a runtime
// size clamped to the tile with min()). The header is not the
// tile: no proxy-war. A header placed in the tile's last bytes is overwritten
// by the producer's own copy with no fence in between: proxy-war at the copy.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/sm90_pipeline.cuh"

using namespace mt;

constexpr int kStages = 4;
constexpr uint32_t kTileBytes = 8192;
constexpr uint32_t kHeaderBytes = 256;
constexpr uint32_t kStageStride = kTileBytes + kHeaderBytes;  // [tile 8192 | header 256]
constexpr uint32_t kBarOffset = kStages * kStageStride;

enum CopyKind { kTmaExpectTx, kTmaHalves, kBulkConstant, kBulkClamped };
enum HeaderAt { kAfterTile, kInsideTile };

struct StageHeader {
  int k;
  float scale;
};

template <CopyKind kCopy, HeaderAt kHeader>
__device__ __forceinline__ void ring(const void* map, const float* src, const float* scale, float* out, int n) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kBarOffset);
  uint64_t* empty = full + kStages;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, t = threadIdx.x;
  const int iters = (n + 2047) / 2048;
  const uint32_t header_offset = kHeader == kAfterTile ? kTileBytes : kTileBytes - sizeof(StageHeader);
  if (t == 0) {
    for (int s = 0; s < kStages; ++s) {
      ClusterBarrier::init(full + s, 1);
      ClusterBarrier::init(empty + s, 4);
    }
    fence_barrier_init();
  }
  __syncthreads();
  if (warp == 4) {
    if (lane == 0) {
      for (int k = 0; k < iters; ++k) {
        const int s = k % kStages;
        uint8_t* stage = smem + s * kStageStride;
        ClusterBarrier::wait(empty + s, ((k / kStages) & 1) ^ 1);
        StageHeader* h = reinterpret_cast<StageHeader*>(stage + header_offset);
        h->k = k;
        h->scale = scale[k];
        const uint32_t bytes = kCopy == kBulkClamped ? min(uint32_t(n - k * 2048), 2048u) * 4u : kTileBytes;
        ClusterTransactionBarrier::arrive_and_expect_tx(full + s, bytes);
        if (kCopy == kTmaExpectTx) {
          SM90_TMA_LOAD_2D::copy(map, full + s, stage, 0, k * 32);
        } else if (kCopy == kTmaHalves) {  // two 16-row boxes of one map
          SM90_TMA_LOAD_2D::copy(map, full + s, stage, 0, k * 32);
          SM90_TMA_LOAD_2D::copy(map, full + s, stage + kTileBytes / 2, 0, k * 32 + 16);
        } else {
          SM90_BULK_COPY_G2S::copy(src + size_t(k) * 2048, full + s, stage, bytes);
        }
      }
    }
    return;
  }
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    const int s = k % kStages;
    const uint8_t* stage = smem + s * kStageStride;
    ClusterBarrier::wait(full + s, (k / kStages) & 1);
    const StageHeader* h = reinterpret_cast<const StageHeader*>(stage + header_offset);
    acc += reinterpret_cast<const float*>(stage)[t] * h->scale + h->k;
    fence_view_async_shared();
    if (lane == 0) ClusterBarrier::arrive(empty + s);
  }
  out[blockIdx.x * 128 + t] = acc;
}

// Clean: the header sits right after the tile that each copy fills.
__global__ void extent_tma_expect_tx_clean(const void* m, const float* src, const float* sc, float* out, int n) {
  ring<kTmaExpectTx, kAfterTile>(m, src, sc, out, n);
}
__global__ void extent_tma_halves_clean(const void* m, const float* src, const float* sc, float* out, int n) {
  ring<kTmaHalves, kAfterTile>(m, src, sc, out, n);
}
__global__ void extent_bulk_constant_clean(const void* m, const float* src, const float* sc, float* out, int n) {
  ring<kBulkConstant, kAfterTile>(m, src, sc, out, n);
}
__global__ void extent_bulk_clamped_clean(const void* m, const float* src, const float* sc, float* out, int n) {
  ring<kBulkClamped, kAfterTile>(m, src, sc, out, n);
}

// Broken: the header lies in the tile's last bytes; the producer's own copy
// overwrites it through the async proxy with no fence after the plain stores.
__global__ void extent_tma_header_in_tile(const void* m, const float* src, const float* sc, float* out, int n) {
  ring<kTmaExpectTx, kInsideTile>(m, src, sc, out, n);  // expect: proxy-war
}
__global__ void extent_tma_halves_header_in_tile(const void* m, const float* src, const float* sc, float* out, int n) {
  ring<kTmaHalves, kInsideTile>(m, src, sc, out, n);  // expect: proxy-war
}
__global__ void extent_bulk_header_in_tile(const void* m, const float* src, const float* sc, float* out, int n) {
  ring<kBulkConstant, kInsideTile>(m, src, sc, out, n);  // expect: proxy-war
}
