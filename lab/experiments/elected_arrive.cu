// elected-arrive: in every CTA, warp 0 fills a shared tile (each lane writes
// a lane-dependent number of words, so the lanes diverge), then lane 0
// arrives on the "full" mbarrier (arrival count 1) for the whole warp;
// warp 1 waits on it and reads every word. The arrive's release orders lane
// 0's own writes only: without __syncwarp() the other lanes' writes may not
// have happened. Warp 1 then frees the tile (__syncwarp, lane 0 arrives on
// "empty"). Each word carries the round's tag; a read that sees another tag
// is a violation.
// Variants:
//   unfixed   writes, lane 0 arrives                       -> elected-arrive
//   fixed     writes, __syncwarp(), lane 0 arrives
//   divergent lane 0 writes its 8 words and arrives in one branch, the
//             other lanes write theirs in the other: nothing makes lane 0
//             wait for them                                 -> elected-arrive
//   divergent-syncwarp  the same branches, then __syncwarp(), then lane 0 arrives
#include "../DeviceCommon.cuh"
#include "../Experiment.h"

namespace lab::elected_arrive {

constexpr unsigned kThreads = 64;  // warp 0 writes, warp 1 reads
constexpr unsigned kMaxWordsPerLane = 64;
constexpr unsigned kTileWords = 32 * kMaxWordsPerLane;
constexpr unsigned kDivergentWords = 8;

struct Params {
  unsigned long long* stale;
  unsigned* timeouts;
  unsigned rounds;
  uint64_t timeoutNs;
};

__host__ __device__ constexpr uint32_t tag(unsigned cta, unsigned round) {
  return 0x80000000u | ((cta & 0x7fffu) << 16) | (round & 0xffffu);
}

// Lane l writes words [l * 64, l * 64 + count(l, round)); the rest of its row
// keeps the round's tag from a write the reader does not check.
__device__ __forceinline__ unsigned wordsOf(unsigned lane, unsigned round) {
  return 8 + ((lane * 13 + round * 7) % (kMaxWordsPerLane - 8));
}

__device__ __forceinline__ void arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

enum class Shape { Straight, StraightSyncwarp, Divergent, DivergentSyncwarp };

template <Shape S>
__device__ __forceinline__ void rounds(const Params& p) {
  __shared__ __align__(16) uint32_t tile[kTileWords];
  __shared__ __align__(8) uint64_t bars[2];
  const uint32_t full = sharedAddress(&bars[0]), empty = sharedAddress(&bars[1]);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) {
    mbarrierInit(full, 1);
    mbarrierInit(empty, 1);
  }
  __syncthreads();
  const uint64_t deadline = deadlineAfter(p.timeoutNs);
  unsigned long long stale = 0;
  for (unsigned round = 0; round < p.rounds; ++round) {
    const uint32_t parity = round & 1;
    if (warp == 0) {
      if (round > 0 && !mbarrierWait(empty, parity ^ 1, deadline)) {
        noteTimeout(p.timeouts);
        return;
      }
      const unsigned n = wordsOf(lane, round);
      if (S == Shape::Straight || S == Shape::StraightSyncwarp) {
        for (unsigned j = 0; j < n; ++j) tile[lane * kMaxWordsPerLane + j] = tag(blockIdx.x, round);
        if (S == Shape::StraightSyncwarp) __syncwarp();
        if (lane == 0) arrive(full);
      } else {
        // Eight words per lane, unrolled: the two branches are straight-line
        // code, so nothing but the scheduler orders them.
        if (lane == 0) {
#pragma unroll
          for (unsigned j = 0; j < kDivergentWords; ++j) tile[j] = tag(blockIdx.x, round);
          if (S == Shape::Divergent) arrive(full);
        } else {
#pragma unroll
          for (unsigned j = 0; j < kDivergentWords; ++j) tile[lane * kMaxWordsPerLane + j] = tag(blockIdx.x, round);
        }
        if (S == Shape::DivergentSyncwarp) {
          __syncwarp();
          if (lane == 0) arrive(full);
        }
      }
    } else {
      if (!mbarrierWait(full, parity, deadline)) {
        noteTimeout(p.timeouts);
        return;
      }
      for (unsigned w = 0; w < 32; ++w) {
        const bool straight = S == Shape::Straight || S == Shape::StraightSyncwarp;
        const unsigned n = straight ? wordsOf(w, round) : kDivergentWords;
        for (unsigned j = lane; j < n; j += 32)
          if (tile[w * kMaxWordsPerLane + j] != tag(blockIdx.x, round)) ++stale;
      }
      __syncwarp();
      if (lane == 0) arrive(empty);
    }
  }
  if (stale) atomicAdd(p.stale, stale);
}

__global__ void __launch_bounds__(kThreads) electedArriveUnfixed(const __grid_constant__ Params p) {
  rounds<Shape::Straight>(p);  // expect: elected-arrive
}
__global__ void __launch_bounds__(kThreads) electedArriveFixed(const __grid_constant__ Params p) {
  rounds<Shape::StraightSyncwarp>(p);
}
__global__ void __launch_bounds__(kThreads) electedArriveDivergent(const __grid_constant__ Params p) {
  rounds<Shape::Divergent>(p);  // expect: elected-arrive
}
__global__ void __launch_bounds__(kThreads) electedArriveDivergentSyncwarp(const __grid_constant__ Params p) {
  rounds<Shape::DivergentSyncwarp>(p);
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  const unsigned ctas = ctx.device->multiProcessorCount * static_cast<unsigned>(ctx.param("elected-arrive.ctas_per_sm", 8));
  Params p{};
  p.rounds = static_cast<unsigned>(ctx.param("elected-arrive.rounds", 2000));
  p.timeoutNs = static_cast<uint64_t>(ctx.param("elected-arrive.timeout_ms", 5000)) * 1000000ull;
  check(cudaMalloc(&p.stale, sizeof(unsigned long long)), "cudaMalloc");
  check(cudaMalloc(&p.timeouts, sizeof(unsigned)), "cudaMalloc");
  void (*kernel)(Params) = variant == "fixed"                ? electedArriveFixed
                           : variant == "divergent"          ? electedArriveDivergent
                           : variant == "divergent-syncwarp" ? electedArriveDivergentSyncwarp
                                                             : electedArriveUnfixed;
  Result result{"elected-arrive", variant};
  unsigned long long words = 0;
  const bool straight = variant == "unfixed" || variant == "fixed";
  for (unsigned r = 0; r < p.rounds; ++r)
    for (unsigned l = 0; l < 32; ++l) words += straight ? 8 + ((l * 13 + r * 7) % (kMaxWordsPerLane - 8)) : kDivergentWords;
  unsigned long long staleTotal = 0;
  unsigned timeoutTotal = 0;
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(p.stale, 0, sizeof(unsigned long long)), "cudaMemset");
    check(cudaMemset(p.timeouts, 0, sizeof(unsigned)), "cudaMemset");
    result.seconds += timedLaunch(ctx, "elected-arrive", [&] { kernel<<<ctas, kThreads>>>(p); });
    unsigned long long stale = 0;
    unsigned timeouts = 0;
    check(cudaMemcpy(&stale, p.stale, sizeof stale, cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaMemcpy(&timeouts, p.timeouts, sizeof timeouts, cudaMemcpyDeviceToHost), "cudaMemcpy");
    staleTotal += stale;
    timeoutTotal += timeouts;
    result.trials += words * ctas;
    ++result.launches;
  }
  check(cudaFree(p.stale), "cudaFree");
  check(cudaFree(p.timeouts), "cudaFree");
  result.violations = staleTotal;
  if (timeoutTotal) result.status = "timeout";
  result.set("timeouts", static_cast<double>(timeoutTotal));
  result.set("ctas", ctas);
  result.set("rounds_per_launch", p.rounds);
  if (result.launches) result.set("ns_per_round", result.seconds / result.launches / p.rounds * 1e9);
  return {result};
}

}  // namespace lab::elected_arrive

lab::ExperimentInfo lab::electedArriveExperiment() {
  return {"elected-arrive", "warp 0 writes a shared tile, lane 0 alone arrives for it (with or without __syncwarp)",
          {"unfixed", "fixed", "divergent", "divergent-syncwarp"}, elected_arrive::runVariant};
}
