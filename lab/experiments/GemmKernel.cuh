// The incident's GEMM, on the lab's terms: C[M x N] (fp32) = A[M x K] . B[N x K]^T, A and
// B in bf16, both K-major. A persistent grid (one CTA per SM) walks the 128 x BN output
// tiles; in each CTA one producer thread (warp 0, lane 0) fills a ring of `stages`
// shared-memory stages with two TMA tensor copies per stage (A: 128 x 32, B: BN x 32,
// completing on the stage's "full" mbarrier), and the consumer warps (a WarpsM x WarpsN
// grid over the tile, each 128/WarpsM x BN/WarpsN of it) read each stage with ldmatrix,
// hand it back on its "empty" mbarrier (one arrival per warp), and multiply what they read
// (mma.sync m16n8k16, fp32 accumulators): the incident's design, in which the stage's
// ldmatrix loads can still be in flight when lane 0's arrive lets the producer refill it.
//
// The shape of a kernel (GemmShape): the tile width, the warp grid (4x2: 8 warps of 32 x 48,
// the lab's first layout; 8x1: 8 warps of 16 rows x the whole tile width, the layout whose
// overtaken ldmatrix row shows as the incident's ~16 wrong elements in one column of one
// warp's rows; 8x2: 16 consumer warps, two warp groups of 16 x 48) and the consumer's
// schedule (Schedule): where the MMAs stand relative to the arrive.
//
// The kernels in gemm.cu differ only in the hand-off, passed in as a policy type with
//   waitEmpty(emptyBar, stage, round, deadline)  the producer's wait before refilling (false: timeout)
//   beforeRefill(stage, round)                    the producer, between that wait and the copies
//   waitFull(fullBar, stage, round, deadline)     every consumer lane's wait for a full stage
//   release(emptyBar, lane, stage, round)         every consumer lane, after its ldmatrix loads
// so that the variants are the same instructions but for their fences (the library's
// variants wait through fenceline::TmaPipeline's bounded waits, the others through the
// lab's, which are the same mbarrier.try_wait loop). The barriers lie
// as fenceline::StageBarriers does (full[stages], then empty[stages]), so the library's
// TmaPipeline can drive the same ring. Every spin loop has a %globaltimer deadline.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "../DeviceCommon.cuh"

namespace lab::gemm {

constexpr int kTileM = 128;
constexpr int kTileK = 32;  // bf16: 64 bytes per tile row, the 64-byte swizzle's width
constexpr int kMaxStages = 8;
constexpr uint32_t kStageAlign = 1024;

// Where a consumer warp's MMAs stand relative to its arrive on "empty":
//   same_stage  ldmatrix of stage s, arrive, MMAs of stage s (ptxas may move the arrive
//               behind the MMAs that wait for the first loads: the SASS shows where)
//   pinned      as same_stage, but the MMAs depend on a test of "empty" that follows the
//               arrive, so that every ldmatrix of the stage is in flight at the arrive
//   prefetch    ldmatrix of stage s+1, arrive, then the MMAs of stage s (whose fragments
//               the previous step loaded): the register double buffer of a pipelined
//               consumer, where no MMA waits for the loads the arrive hands back
enum class Schedule { same_stage, pinned, prefetch };

template <int TileN, int WarpsM, int WarpsN, Schedule S>
struct GemmShape {
  static constexpr int kTileN = TileN;
  static constexpr int kWarpsM = WarpsM, kWarpsN = WarpsN;
  static constexpr int kConsumerWarps = WarpsM * WarpsN;
  static constexpr int kThreads = 32 * (1 + kConsumerWarps);
  static constexpr int kRowTiles = kTileM / WarpsM / 16;    // m16 tiles per warp
  static constexpr int kColumnTiles = TileN / WarpsN / 8;   // n8 tiles per warp
  static constexpr Schedule kSchedule = S;
  static_assert(kRowTiles >= 1 && kColumnTiles % 2 == 0, "a warp holds whole m16 tiles and n16 pairs");
};

struct Params {
  CUtensorMap a;  // A [M][K] bf16, box kTileK x kTileM
  CUtensorMap b;  // B [N][K] bf16, box kTileK x BN
  float* c;       // C [M][N]
  int m, n, k;
  unsigned stages;
  unsigned swizzle;      // 1: the tensor maps use the 64-byte swizzle (conflict-free ldmatrix)
  unsigned* timeouts;    // spin loops that gave up
  uint64_t timeoutNs;
};

__host__ __device__ constexpr uint32_t aStageBytes() { return kTileM * kTileK * 2; }
__host__ __device__ constexpr uint32_t bStageBytes(int tileN) { return static_cast<uint32_t>(tileN) * kTileK * 2; }
__host__ __device__ constexpr uint32_t stageBytes(int tileN) { return aStageBytes() + bStageBytes(tileN); }
// Dynamic shared memory: alignment slack, the stages, then full[stages] and empty[stages].
__host__ __device__ constexpr uint32_t sharedBytes(int tileN, unsigned stages) {
  return kStageAlign + stages * stageBytes(tileN) + 16 * stages;
}

// Byte offset, inside a tile of 64-byte rows, of the 16-byte chunk `chunk` (0..3) of row
// `row`: with the 64-byte swizzle the TMA stores chunk c of row r at c ^ ((r >> 1) & 3).
__device__ __forceinline__ uint32_t chunkOffset(uint32_t row, uint32_t chunk, unsigned swizzle) {
  const uint32_t physical = swizzle ? chunk ^ ((row >> 1) & 3u) : chunk;
  return row * 64 + physical * 16;
}

__device__ __forceinline__ void ldmatrixX4(uint32_t address, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address)
               : "memory");
}

__device__ __forceinline__ void mmaBf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void tensorLoad2d(uint32_t dst, const CUtensorMap* map, int x, int y, uint32_t fullBar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
      "[%4];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(fullBar)
      : "memory");
}

// What one consumer warp holds of one stage: A fragments for its m16 row tiles and B
// fragments for its n8 column tiles, for both 16-deep k steps of the stage.
template <class Shape>
struct StageFragments {
  uint32_t a[2][Shape::kRowTiles][4];     // [k step][m16 tile][4]
  uint32_t b[2][Shape::kColumnTiles][2];  // [k step][n8 tile][2]
};

template <class Shape>
using Accumulators = float[Shape::kRowTiles][Shape::kColumnTiles][4];

// Issues every ldmatrix of one stage for this warp; nothing waits for the values here.
template <class Shape>
__device__ __forceinline__ void loadStage(uint32_t aStage, uint32_t bStage, unsigned warpM, unsigned warpN,
                                          unsigned lane, unsigned swizzle, StageFragments<Shape>& f) {
#pragma unroll
  for (int ks = 0; ks < 2; ++ks) {
#pragma unroll
    for (int mt = 0; mt < Shape::kRowTiles; ++mt) {
      const uint32_t row = warpM * (kTileM / Shape::kWarpsM) + mt * 16 + (lane & 15);
      ldmatrixX4(aStage + chunkOffset(row, ks * 2 + (lane >> 4), swizzle), f.a[ks][mt]);
    }
#pragma unroll
    for (int np = 0; np < Shape::kColumnTiles / 2; ++np) {
      const uint32_t row = warpN * (Shape::kTileN / Shape::kWarpsN) + np * 16 + (lane & 7) + ((lane >> 4) << 3);
      uint32_t r[4];
      ldmatrixX4(bStage + chunkOffset(row, ks * 2 + ((lane >> 3) & 1), swizzle), r);
      f.b[ks][2 * np][0] = r[0];
      f.b[ks][2 * np][1] = r[1];
      f.b[ks][2 * np + 1][0] = r[2];
      f.b[ks][2 * np + 1][1] = r[3];
    }
  }
}

template <class Shape>
__device__ __forceinline__ void multiplyStage(const StageFragments<Shape>& f, Accumulators<Shape>& acc) {
#pragma unroll
  for (int ks = 0; ks < 2; ++ks)
#pragma unroll
    for (int mt = 0; mt < Shape::kRowTiles; ++mt)
#pragma unroll
      for (int nt = 0; nt < Shape::kColumnTiles; ++nt)
        mmaBf16(acc[mt][nt], f.a[ks][mt], f.b[ks][nt][0], f.b[ks][nt][1]);
}

template <class Shape>
__device__ __forceinline__ void storeTile(const Params& p, int tileRow, int tileCol, unsigned warpM, unsigned warpN,
                                          unsigned lane, const Accumulators<Shape>& acc) {
#pragma unroll
  for (int mt = 0; mt < Shape::kRowTiles; ++mt)
#pragma unroll
    for (int nt = 0; nt < Shape::kColumnTiles; ++nt) {
      const int col = tileCol + static_cast<int>(warpN) * (Shape::kTileN / Shape::kWarpsN) + nt * 8 +
                      static_cast<int>(lane % 4) * 2;
      const int row =
          tileRow + static_cast<int>(warpM) * (kTileM / Shape::kWarpsM) + mt * 16 + static_cast<int>(lane / 4);
      if (col >= p.n) continue;
      if (row < p.m)
        *reinterpret_cast<float2*>(p.c + static_cast<size_t>(row) * p.n + col) = make_float2(acc[mt][nt][0], acc[mt][nt][1]);
      if (row + 8 < p.m)
        *reinterpret_cast<float2*>(p.c + static_cast<size_t>(row + 8) * p.n + col) =
            make_float2(acc[mt][nt][2], acc[mt][nt][3]);
    }
}

// Returns 0, but only after a test of the stage's "empty" barrier that follows the
// hand-off (as ProxyRing.cuh's zeroAfterHandOff): with Schedule::pinned the fragments are
// XORed with it before the MMAs, so that ptxas cannot schedule any MMA, and with it a wait
// for a loaded fragment, ahead of the arrive; every ldmatrix of the stage is then still in
// flight at the hand-off. Without it (same_stage) ptxas places the arrive after the first
// k step's MMAs (seen in the SASS), when about half the loads have returned. `zero` is a
// run-time 0 the compiler cannot fold.
__device__ __forceinline__ uint32_t zeroAfterRelease(uint32_t emptyBar, uint32_t zero) {
  uint32_t done;
  asm volatile(
      "{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(emptyBar)
      : "memory");
  return done ? 0u : zero;
}

template <class Shape>
__device__ __forceinline__ void gateFragments(StageFragments<Shape>& f, uint32_t gate) {
#pragma unroll
  for (int ks = 0; ks < 2; ++ks) {
#pragma unroll
    for (int mt = 0; mt < Shape::kRowTiles; ++mt)
#pragma unroll
      for (int j = 0; j < 4; ++j) f.a[ks][mt][j] ^= gate;
#pragma unroll
    for (int nt = 0; nt < Shape::kColumnTiles; ++nt) {
      f.b[ks][nt][0] ^= gate;
      f.b[ks][nt][1] ^= gate;
    }
  }
}

// The ring's barriers, as a generic pointer (what fenceline::TmaPipeline takes).
template <int TileN>
__device__ __forceinline__ void* ringBarriers(const Params& p) {
  extern __shared__ __align__(1024) uint8_t gemmShared[];
  const uint32_t base = sharedAddress(gemmShared);
  const uint32_t pad = (kStageAlign - base % kStageAlign) % kStageAlign;
  return gemmShared + pad + p.stages * stageBytes(TileN);
}

template <class Shape, class Handoff>
__device__ void gemmRing(const Params& p, Handoff handoff) {
  constexpr int TileN = Shape::kTileN;
  extern __shared__ __align__(1024) uint8_t gemmShared[];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t base = sharedAddress(gemmShared);
  const uint32_t data = base + (kStageAlign - base % kStageAlign) % kStageAlign;  // 1 KB aligned: the swizzle's span
  const uint32_t bars = data + p.stages * stageBytes(TileN);
  auto full = [&](unsigned s) { return bars + 8 * s; };
  auto empty = [&](unsigned s) { return bars + 8 * (p.stages + s); };
  if (threadIdx.x == 0) {
    for (unsigned s = 0; s < p.stages; ++s) {
      mbarrierInit(full(s), 1);
      mbarrierInit(empty(s), Shape::kConsumerWarps);
    }
    fenceBarrierInit();
  }
  __syncthreads();
  const uint64_t deadline = deadlineAfter(p.timeoutNs);
  const int tilesM = (p.m + kTileM - 1) / kTileM, tilesN = (p.n + TileN - 1) / TileN;
  const int tiles = tilesM * tilesN, kBlocks = p.k / kTileK;

  if (warp == 0) {
    if (lane != 0) return;
    unsigned it = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
      const int tileRow = (t % tilesM) * kTileM, tileCol = (t / tilesM) * TileN;
      for (int kb = 0; kb < kBlocks; ++kb, ++it) {
        const unsigned s = it % p.stages, round = it / p.stages;
        if (!handoff.waitEmpty(empty(s), s, round, deadline)) {
          atomicAdd(p.timeouts, 1u);
          return;
        }
        handoff.beforeRefill(s, round);
        const uint32_t stage = data + s * stageBytes(TileN);
        mbarrierArriveExpectTx(full(s), stageBytes(TileN));
        tensorLoad2d(stage, &p.a, kb * kTileK, tileRow, full(s));
        tensorLoad2d(stage + aStageBytes(), &p.b, kb * kTileK, tileCol, full(s));
      }
    }
    return;
  }
  const unsigned consumer = warp - 1, warpM = consumer % Shape::kWarpsM, warpN = consumer / Shape::kWarpsM;
  // Ring step `it`: wait until full, ldmatrix into f, hand the stage back (false: timeout).
  auto readStage = [&](unsigned it, StageFragments<Shape>& f) {
    const unsigned s = it % p.stages, round = it / p.stages;
    if (!handoff.waitFull(full(s), s, round, deadline)) {
      if (lane == 0) atomicAdd(p.timeouts, 1u);
      return false;
    }
    const uint32_t stage = data + s * stageBytes(TileN);
    loadStage<Shape>(stage, stage + aStageBytes(), warpM, warpN, lane, p.swizzle, f);
    handoff.release(empty(s), lane, s, round);
    if constexpr (Shape::kSchedule == Schedule::pinned) gateFragments<Shape>(f, zeroAfterRelease(empty(s), p.stages >> 16));
    return true;
  };
  unsigned it = 0;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    const int tileRow = (t % tilesM) * kTileM, tileCol = (t / tilesM) * TileN;
    Accumulators<Shape> acc = {};
    if constexpr (Shape::kSchedule == Schedule::prefetch) {
      // Two fragment sets in turn (named, not indexed: they stay in registers).
      StageFragments<Shape> even, odd;
      if (!readStage(it, even)) return;
      for (int kb = 0; kb < kBlocks; kb += 2) {
        if (kb + 1 < kBlocks && !readStage(it + 1, odd)) return;
        multiplyStage<Shape>(even, acc);
        if (kb + 1 >= kBlocks) break;
        if (kb + 2 < kBlocks && !readStage(it + 2, even)) return;
        multiplyStage<Shape>(odd, acc);
        it += 2;
      }
      it += kBlocks % 2;  // the loop advanced by whole pairs; an odd count ends on `even`
    } else {
      for (int kb = 0; kb < kBlocks; ++kb, ++it) {
        StageFragments<Shape> f;
        if (!readStage(it, f)) return;
        multiplyStage<Shape>(f, acc);
      }
    }
    storeTile<Shape>(p, tileRow, tileCol, warpM, warpN, lane, acc);
  }
}

}  // namespace lab::gemm
