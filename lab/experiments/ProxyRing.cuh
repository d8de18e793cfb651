// The stage ring behind proxy-war and proxy-war-tma. One producer thread fills
// `stages` shared-memory buffers with bulk copies (cp.async.bulk) or TMA tensor
// copies (cp.async.bulk.tensor) that complete on a "full" mbarrier; each
// consumer warp waits for a stage, reads its 8 KB slice with generic loads
// (ld.shared or ldmatrix, bank-conflicted or not), hands the stage back on an
// "empty" mbarrier, and only then checks what it read. Every word of a fill
// holds a tag that encodes its generation, so a read that the next refill
// overtook shows up as the next generation's tag.
//
// The kernels in proxy_war.cu differ only in the two steps passed in here:
// `beforeRefill(stage, round)` (run by the producer between its wait on
// "empty" and the copy) and `releaseStage(emptyBar, lane, stage, round)` (run
// by every consumer lane after its reads). The barriers lie as
// fenceline::StageBarriers does (full[stages], then empty[stages]), so the
// library's TmaPipeline can drive the same ring.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "../DeviceCommon.cuh"

namespace lab::proxy_ring {

enum class Reader { Lds, Ldmatrix };
enum class Copy { Bulk, Tensor };

constexpr unsigned kWordsPerLane = 64;  // reads in flight per lane when the stage is released
constexpr unsigned kSliceBytes = 32 * kWordsPerLane * 4;  // one consumer warp's share of a stage
constexpr unsigned kTensorCols = 64;                      // TMA box: 64 words x (stage / 256 B) rows
constexpr unsigned kMaxConsumerWarps = 8;

struct Params {
  CUtensorMap tensorMap;  // sources as a [rows x 64] word tensor (Copy::Tensor)
  const uint32_t* sources;  // [sets][tags][stage words] (Copy::Bulk)
  unsigned long long* counters;  // [0] reads that saw the refill, [1] other wrong values, [2] timeouts
  unsigned fills;           // stage fills per CTA and launch
  unsigned stages;
  unsigned consumerWarps;
  unsigned tags;            // distinct generations in the sources
  unsigned sourceSets;      // 1: every CTA copies the same (L2-resident) sources
  unsigned bankConflicts;   // 1: 32-way (ld.shared) / 8-way (ldmatrix) conflicts
  uint64_t timeoutNs;
};

__host__ __device__ constexpr uint32_t tagValue(unsigned generation) {
  return 0xA5000000u + generation * 0x10001u;
}

__device__ __forceinline__ unsigned stageBytes(const Params& p) { return p.consumerWarps * kSliceBytes; }

// Reads this lane's 64 words of a slice, without waiting for them: the values
// are used only after the stage has been released.
template <Reader R>
__device__ __forceinline__ void readSlice(uint32_t base, uint32_t step, uint32_t (&v)[kWordsPerLane]) {
  if constexpr (R == Reader::Lds) {
#pragma unroll
    for (unsigned j = 0; j < kWordsPerLane; ++j) v[j] = loadShared(base + j * step);
  } else {
#pragma unroll
    for (unsigned j = 0; j < kWordsPerLane / 4; ++j)
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v[4 * j]), "=r"(v[4 * j + 1]), "=r"(v[4 * j + 2]), "=r"(v[4 * j + 3])
                   : "r"(base + j * step));
  }
}

// Where this lane's reads start in its slice and how far apart they are.
template <Reader R>
__device__ __forceinline__ void laneLayout(unsigned lane, bool conflicts, uint32_t& offset, uint32_t& step) {
  if constexpr (R == Reader::Lds) {
    // Conflicted: lanes 64 words apart -> all 32 lanes in one bank (32-way).
    offset = conflicts ? lane * kWordsPerLane * 4 : lane * 4;
    step = conflicts ? 4 : 128;
  } else {
    // Rows of 16 B; conflicted: the 8 rows of one matrix 1 KB apart -> same 4 banks (8-way).
    offset = conflicts ? ((lane & 7) * 64 + (lane >> 3) * 16) * 16 : lane * 16;
    step = conflicts ? 16 : 512;
  }
}

// Returns 0, but only after a test of the stage's "empty" barrier that
// follows the hand-off; the checks XOR every value read with it. Without this, ptxas interleaves the
// comparisons with the loads and so waits for every read before the arrive
// (seen in the SASS of an earlier build): the reads are then complete before
// the hand-off and no refill can overtake them, whatever the hardware allows.
// `zero` is a run-time 0 the compiler cannot fold.
__device__ __forceinline__ uint32_t zeroAfterHandOff(uint32_t emptyBar, uint32_t zero) {
  uint32_t done;
  asm volatile(
      "{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(emptyBar)
      : "memory");
  return done ? 0u : zero;
}

template <Copy C>
__device__ __forceinline__ void issueFill(const Params& p, uint32_t dst, uint32_t fullBar, unsigned generation) {
  const unsigned set = p.sourceSets > 1 ? blockIdx.x % p.sourceSets : 0;
  const unsigned region = set * p.tags + generation % p.tags;
  if constexpr (C == Copy::Bulk) {
    const uint32_t* src = p.sources + static_cast<size_t>(region) * (stageBytes(p) / 4);
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
        "l"(src), "r"(stageBytes(p)), "r"(fullBar)
        : "memory");
  } else {
    const int row = static_cast<int>(region * (stageBytes(p) / (kTensorCols * 4)));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
            "r"(dst),
        "l"(reinterpret_cast<uint64_t>(&p.tensorMap)), "r"(0), "r"(row), "r"(fullBar)
        : "memory");
  }
}

// The ring's barriers, as a generic pointer (what fenceline::TmaPipeline takes).
__device__ __forceinline__ void* ringBarriers(const Params& p) {
  extern __shared__ __align__(1024) uint8_t ring[];
  return ring + p.stages * stageBytes(p);
}

template <Reader R, Copy C, class BeforeRefill, class ReleaseStage>
__device__ void stageRing(const Params& p, BeforeRefill beforeRefill, ReleaseStage releaseStage) {
  extern __shared__ __align__(1024) uint8_t ring[];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned bytes = stageBytes(p);
  const uint32_t data = sharedAddress(ring);
  const uint32_t bars = data + p.stages * bytes;
  auto full = [&](unsigned s) { return bars + 8 * s; };
  auto empty = [&](unsigned s) { return bars + 8 * (p.stages + s); };
  if (threadIdx.x == 0) {
    for (unsigned s = 0; s < p.stages; ++s) {
      mbarrierInit(full(s), 1);
      mbarrierInit(empty(s), p.consumerWarps);
    }
    fenceBarrierInit();
  }
  __syncthreads();
  const uint64_t deadline = deadlineAfter(p.timeoutNs);

  if (warp == 0) {
    if (lane != 0) return;
    for (unsigned it = 0; it < p.fills; ++it) {
      const unsigned s = it % p.stages, round = it / p.stages;
      if (round > 0 && !mbarrierWait(empty(s), (round - 1) & 1, deadline)) {
        atomicAdd(&p.counters[2], 1ull);
        return;
      }
      beforeRefill(s, round);
      mbarrierArriveExpectTx(full(s), bytes);
      issueFill<C>(p, data + s * bytes, full(s), round);
    }
    return;
  }
  const unsigned consumer = warp - 1;
  if (consumer >= p.consumerWarps) return;
  uint32_t offset, step;
  laneLayout<R>(lane, p.bankConflicts != 0, offset, step);
  unsigned sawRefill = 0, other = 0;
  for (unsigned it = 0; it < p.fills; ++it) {
    const unsigned s = it % p.stages, round = it / p.stages;
    if (!mbarrierWait(full(s), round & 1, deadline)) {
      atomicAdd(&p.counters[2], 1ull);
      break;
    }
    uint32_t v[kWordsPerLane];
    readSlice<R>(data + s * bytes + consumer * kSliceBytes + offset, step, v);
    releaseStage(empty(s), lane, s, round);
    const uint32_t gate = zeroAfterHandOff(empty(s), p.tags >> 16);
    const uint32_t expected = tagValue(round % p.tags), next = tagValue((round + 1) % p.tags);
#pragma unroll
    for (unsigned j = 0; j < kWordsPerLane; ++j) {
      const uint32_t seen = v[j] ^ gate;
      sawRefill += seen == next;
      other += seen != expected && seen != next;
    }
  }
  atomicAdd(&p.counters[0], static_cast<unsigned long long>(sawRefill));
  atomicAdd(&p.counters[1], static_cast<unsigned long long>(other));
}

}  // namespace lab::proxy_ring
