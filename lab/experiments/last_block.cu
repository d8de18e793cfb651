// last-block: "the last block does the work" (issue 30, shape 1). Every block
// writes its partial results, then thread 0 counts the block in with a
// read-modify-write on a ticket; the block that draws the last ticket reads
// every block's partials. No spin: the ticket's returned value is the
// observation. The count must be a release (or follow a fence) so that the
// partials are visible before it, and the last block must acquire (or fence)
// after it, before it reads them. To give a stale read a chance, every thread
// first reads the words it would check as the last block (so its SM's L1 holds
// their lines, as mp-l1 does), then writes its own partial.
// Variants:
//   unfixed       relaxed atomicAdd, no fence on either side -> release-missing, acquire-missing
//   release-only  __threadfence() before the count, none after -> acquire-missing
//   fixed         __threadfence() before the count and after it (thread 0, before the barrier)
// One block per SM, 256 threads; each round has its own partials and ticket
// (zeroed by the host), so rounds do not interfere; a violation is a word the
// last block read that does not hold its round's value.
#include "../DeviceCommon.cuh"
#include "../Experiment.h"

namespace lab::last_block {

struct Params {
  unsigned* partials;  // rounds x blocks x threads words
  unsigned* tickets;   // one per round
  unsigned* stale;     // violations
  unsigned* sink;      // keeps the first reads alive
  unsigned rounds;
};

// The words thread t of the last block checks: thread t's partial of every block.
__device__ __forceinline__ unsigned* partialOf(const Params& p, unsigned r, unsigned block) {
  return p.partials + (size_t(r) * gridDim.x + block) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ unsigned readAll(const Params& p, unsigned r) {
  unsigned sum = 0;
  for (unsigned b = 0; b < gridDim.x; ++b) sum += *partialOf(p, r, b);
  return sum;
}

__device__ __forceinline__ unsigned countStale(const Params& p, unsigned r) {
  unsigned stale = 0;
  for (unsigned b = 0; b < gridDim.x; ++b) stale += *partialOf(p, r, b) != r + 1;
  return stale;
}

__global__ void lastBlockUnfixed(Params p) {
  __shared__ unsigned last;
  unsigned sink = 0, stale = 0;
  for (unsigned r = 0; r < p.rounds; ++r) {
    sink += readAll(p, r);
    *partialOf(p, r, blockIdx.x) = r + 1;
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&p.tickets[r], 1u) == gridDim.x - 1;  // expect: release-missing, acquire-missing
    __syncthreads();
    if (last) stale += countStale(p, r);
    __syncthreads();
  }
  if (stale) atomicAdd(p.stale, stale);
  if (sink == 0xffffffffu) *p.sink = sink;
}

__global__ void lastBlockReleaseOnly(Params p) {
  __shared__ unsigned last;
  unsigned sink = 0, stale = 0;
  for (unsigned r = 0; r < p.rounds; ++r) {
    sink += readAll(p, r);
    *partialOf(p, r, blockIdx.x) = r + 1;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      last = atomicAdd(&p.tickets[r], 1u) == gridDim.x - 1;  // expect: acquire-missing
    }
    __syncthreads();
    if (last) stale += countStale(p, r);
    __syncthreads();
  }
  if (stale) atomicAdd(p.stale, stale);
  if (sink == 0xffffffffu) *p.sink = sink;
}

__global__ void lastBlockFixed(Params p) {
  __shared__ unsigned last;
  unsigned sink = 0, stale = 0;
  for (unsigned r = 0; r < p.rounds; ++r) {
    sink += readAll(p, r);
    *partialOf(p, r, blockIdx.x) = r + 1;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      last = atomicAdd(&p.tickets[r], 1u) == gridDim.x - 1;
      __threadfence();
    }
    __syncthreads();
    if (last) stale += countStale(p, r);
    __syncthreads();
  }
  if (stale) atomicAdd(p.stale, stale);
  if (sink == 0xffffffffu) *p.sink = sink;
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  const unsigned blocks = ctx.device->multiProcessorCount;
  const unsigned threads = 256;
  Params p{};
  p.rounds = static_cast<unsigned>(ctx.param("last-block.rounds", 100));
  const size_t partialWords = size_t(p.rounds) * blocks * threads;
  const size_t words = partialWords + p.rounds + 2;
  unsigned* memory = nullptr;
  check(cudaMalloc(&memory, words * 4), "cudaMalloc");
  p.partials = memory;
  p.tickets = memory + partialWords;
  p.stale = p.tickets + p.rounds;
  p.sink = p.stale + 1;
  auto kernel = variant == "unfixed" ? lastBlockUnfixed
                : variant == "release-only" ? lastBlockReleaseOnly
                                            : lastBlockFixed;

  Result result{"last-block", variant};
  uint64_t stale = 0;
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(memory, 0, words * 4), "cudaMemset");
    result.seconds += timedLaunch(ctx, "last-block", [&] { kernel<<<blocks, threads>>>(p); });
    unsigned host = 0;
    check(cudaMemcpy(&host, p.stale, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    stale += host;
    // Trials: the words the last block reads, per round.
    result.trials += static_cast<uint64_t>(blocks) * threads * p.rounds;
    ++result.launches;
  }
  check(cudaFree(memory), "cudaFree");
  result.violations = stale;
  result.set("blocks", blocks);
  result.set("threads", threads);
  result.set("rounds_per_launch", p.rounds);
  return {result};
}

}  // namespace lab::last_block

lab::ExperimentInfo lab::lastBlockExperiment() {
  return {"last-block", "partials counted in with a relaxed ticket, the last block reads them all",
          {"unfixed", "release-only", "fixed"}, last_block::runVariant};
}
