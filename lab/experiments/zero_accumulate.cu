// zero-accumulate: a split reduction by floating-point atomics (the atomic-add
// mode of a split-K GEMM, tests/checks/wheels/zero_then_atomic_accumulate.cu;
// docs/real-code.md, session 25's rmw25). Blocks work in pairs: the first of a
// pair zeroes its output tile (every thread `zero.words_per_thread` plain
// stores), `bar.sync`, and thread 0 stores the round's lock word; the second
// waits for the lock with an acquire (thread 0), `bar.sync`, and every thread
// adds 1.0 into the same words with `red.global.add.f32`. The barrier orders
// the zeros before the lock store at CTA scope only: without a fence a zero can
// reach memory after the other block's add and erase it. The atomic is the
// reader of the zeros (model::isDataUpdate), so the check reports the lock
// store as release-missing.
// Variants:
//   unfixed  bar.sync, then a relaxed lock store            -> release-missing
//   fixed    bar.sync, thread 0 __threadfence(), lock store (the contract's
//            block-wide release: the signalling thread fences after the
//            barrier that gathers the block's writes)
// Each round has its own tiles and lock words; the host fills the tiles with a
// non-zero pattern, so a word that does not end at 1.0 is an add erased by a
// late zero (a violation). A waiter gives up after `zero.timeout_us`.
#include "../DeviceCommon.cuh"
#include "../Experiment.h"

namespace lab::zero_accumulate {

struct Params {
  float* tiles;       // rounds x pairs x threads x words
  unsigned* locks;    // rounds x pairs
  unsigned* wrong;    // words that do not hold 1.0 (counted by countWrong)
  unsigned* timeouts;
  unsigned rounds;
  unsigned words;     // per thread
  uint64_t timeoutNs;
};

// Word w of thread t's part of pair g's tile in round r; a warp's stores cover
// consecutive words, so each store instruction writes whole lines.
__device__ __forceinline__ float* wordOf(const Params& p, unsigned r, unsigned pair, unsigned w) {
  const size_t pairs = gridDim.x / 2;
  const size_t tile = size_t(blockDim.x) * p.words;
  return p.tiles + (size_t(r) * pairs + pair) * tile + size_t(w) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ void zeroTile(const Params& p, unsigned r, unsigned pair) {
  for (unsigned w = 0; w < p.words; ++w) *wordOf(p, r, pair, w) = 0.0f;
}

__device__ __forceinline__ void addIntoTile(const Params& p, unsigned r, unsigned pair) {
  __shared__ unsigned gaveUp;
  if (threadIdx.x == 0) {
    gaveUp = 0;
    const uint64_t deadline = deadlineAfter(p.timeoutNs);
    while (loadAcquireGpu(&p.locks[r * (gridDim.x / 2) + pair]) == 0)
      if (pastDeadline(deadline)) {
        noteTimeout(p.timeouts);
        gaveUp = 1;
        break;
      }
  }
  __syncthreads();
  if (!gaveUp)
    for (unsigned w = 0; w < p.words; ++w) atomicAdd(wordOf(p, r, pair, w), 1.0f);
  __syncthreads();
}

__global__ void zeroAccumulateUnfixed(Params p) {
  const unsigned pair = blockIdx.x / 2;
  for (unsigned r = 0; r < p.rounds; ++r) {
    if (blockIdx.x % 2 == 0) {
      zeroTile(p, r, pair);
      __syncthreads();
      if (threadIdx.x == 0) storeRelaxedGpu(&p.locks[r * (gridDim.x / 2) + pair], 1u);  // expect: release-missing
    } else {
      addIntoTile(p, r, pair);
    }
  }
}

__global__ void zeroAccumulateFixed(Params p) {
  const unsigned pair = blockIdx.x / 2;
  for (unsigned r = 0; r < p.rounds; ++r) {
    if (blockIdx.x % 2 == 0) {
      zeroTile(p, r, pair);
      __syncthreads();
      if (threadIdx.x == 0) {
        __threadfence();
        storeRelaxedGpu(&p.locks[r * (gridDim.x / 2) + pair], 1u);
      }
    } else {
      addIntoTile(p, r, pair);
    }
  }
}

// Counts the words that do not hold exactly one add. A word erased by a late
// zero holds 0.0; one the zero never reached (impossible here) the pattern.
__global__ void countWrong(const float* tiles, size_t n, unsigned* wrong) {
  unsigned local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    local += tiles[i] != 1.0f;
  if (local) atomicAdd(wrong, local);
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  // Two blocks per SM, so every pair's blocks are resident at once (the waiter
  // spins on a block that must be running).
  const unsigned blocks = 2 * ctx.device->multiProcessorCount;
  const unsigned threads = 256;
  Params p{};
  p.rounds = static_cast<unsigned>(ctx.param("zero.rounds", 64));
  p.words = static_cast<unsigned>(ctx.param("zero.words_per_thread", 8));
  p.timeoutNs = static_cast<uint64_t>(ctx.param("zero.timeout_us", 2000)) * 1000;
  const size_t pairs = blocks / 2;
  const size_t tileWords = size_t(p.rounds) * pairs * threads * p.words;
  const size_t lockWords = size_t(p.rounds) * pairs;
  float* tiles = nullptr;
  unsigned* counters = nullptr;
  check(cudaMalloc(&tiles, tileWords * 4), "cudaMalloc");
  check(cudaMalloc(&counters, (lockWords + 2) * 4), "cudaMalloc");
  p.tiles = tiles;
  p.locks = counters;
  p.wrong = counters + lockWords;
  p.timeouts = p.wrong + 1;
  auto kernel = variant == "unfixed" ? zeroAccumulateUnfixed : zeroAccumulateFixed;

  Result result{"zero-accumulate", variant};
  uint64_t wrong = 0, timeouts = 0;
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(tiles, 0x44, tileWords * 4), "cudaMemset");  // 0x44444444 = 785.07f
    check(cudaMemset(counters, 0, (lockWords + 2) * 4), "cudaMemset");
    result.seconds += timedLaunch(ctx, "zero-accumulate", [&] { kernel<<<blocks, threads>>>(p); });
    countWrong<<<4 * ctx.device->multiProcessorCount, 256>>>(tiles, tileWords, p.wrong);
    unsigned host[2] = {0, 0};
    check(cudaMemcpy(host, p.wrong, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    wrong += host[0];
    timeouts += host[1];
    result.trials += tileWords;
    ++result.launches;
  }
  check(cudaFree(tiles), "cudaFree");
  check(cudaFree(counters), "cudaFree");
  result.violations = wrong;
  if (timeouts) result.status = "timeout";
  result.set("blocks", blocks);
  result.set("threads", threads);
  result.set("rounds_per_launch", p.rounds);
  result.set("words_per_thread", p.words);
  result.set("waits_given_up", static_cast<double>(timeouts));
  return {result};
}

}  // namespace lab::zero_accumulate

lab::ExperimentInfo lab::zeroAccumulateExperiment() {
  return {"zero-accumulate",
          "one block zeroes a tile and raises a lock after bar.sync; another acquires it and adds into the tile "
          "with float atomics",
          {"unfixed", "fixed"}, zero_accumulate::runVariant};
}
