// barrier-reuse: a counter grid barrier whose waiters compare against a fixed
// threshold, used twice on the same counter. The second use finds the counter
// already at the threshold and lets every block through at once. One block
// (a different one each repetition) is held back by a %globaltimer delay before
// the second use; a block that leaves the second barrier before all blocks have
// announced their arrival there has passed early. Variants:
//   unfixed  fixed-threshold barrier used twice        -> barrier-reuse
//   fixed    fenceline::GridBarrier (include/fenceline/grid_barrier.cuh): the
//            phase-bit barrier (top bit flips per use), used twice, with its
//            bounded wait sync_until (%globaltimer deadline)
// One block per SM (co-resident); in unfixed, thread 0 of each block takes part,
// in fixed the whole block calls the library barrier; each repetition uses its
// own host-zeroed counter.
#include "../../include/fenceline/grid_barrier.cuh"
#include "../DeviceCommon.cuh"
#include "../Experiment.h"
#include "CounterBarrier.cuh"

namespace lab::barrier_reuse {

// 32-bit words between two repetitions' counters: a fenceline::GridBarrier's counter and
// flag lines (64-bit words).
constexpr unsigned kCounterStride = 2 * fenceline::GridBarrier::kWords;

struct Params {
  unsigned* counters;  // one per repetition, kCounterStride words apart, zeroed by the host
  unsigned* arrived;   // second-use arrivals, counted separately, one per repetition
  unsigned* early;     // blocks that left the second barrier early
  unsigned* timeouts;
  unsigned repetitions;
  uint64_t delayNs;
  uint64_t timeoutNs;
};

// After the second use: did this block get through before everyone arrived?
__device__ void countEarly(const Params& p, unsigned r) {
  if (loadAcquireGpu(&p.arrived[r]) < gridDim.x) atomicAdd(p.early, 1u);
}

__device__ void announceSecondArrival(const Params& p, unsigned r) {
  if (blockIdx.x == r % gridDim.x) delayNs(p.delayNs);
  atomicAdd(&p.arrived[r], 1u);
}

__global__ void barrierReuseUnfixed(Params p) {
  if (threadIdx.x != 0) return;
  for (unsigned r = 0; r < p.repetitions; ++r) {
    unsigned* counter = p.counters + kCounterStride * r;
    bool timedOut = false;
    const uint64_t deadline = deadlineAfter(p.timeoutNs);
    FIXED_THRESHOLD_BARRIER(counter, gridDim.x, deadline, timedOut);
    announceSecondArrival(p, r);
    FIXED_THRESHOLD_BARRIER(counter, gridDim.x, deadline, timedOut);  // expect: barrier-reuse
    if (timedOut) noteTimeout(p.timeouts);
    else countEarly(p, r);
  }
}

// The fixed variant is the library's fenceline::GridBarrier (one per repetition,
// on that repetition's host-zeroed counter) with its bounded wait: every thread of
// the block takes part (arrive/wait contain __syncthreads), thread 0 does the rest.
__global__ void barrierReuseFixed(Params p) {
  for (unsigned r = 0; r < p.repetitions; ++r) {
    const fenceline::GridBarrier barrier{reinterpret_cast<uint64_t*>(p.counters + kCounterStride * r)};
    const uint64_t deadline = deadlineAfter(p.timeoutNs);
    bool passed = barrier.sync_until(deadline);
    if (threadIdx.x == 0) announceSecondArrival(p, r);
    passed = barrier.sync_until(deadline) && passed;
    if (threadIdx.x != 0) continue;
    if (!passed) noteTimeout(p.timeouts);
    else countEarly(p, r);
  }
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  const unsigned blocks = ctx.device->multiProcessorCount;
  Params p{};
  p.repetitions = static_cast<unsigned>(ctx.param("barrier-reuse.repetitions", 200));
  p.delayNs = static_cast<uint64_t>(ctx.param("barrier-reuse.delay_ns", 20000));
  p.timeoutNs = 1'000'000'000ull;
  const size_t words = size_t(kCounterStride) * p.repetitions + p.repetitions + 2;
  unsigned* memory = nullptr;
  check(cudaMalloc(&memory, words * 4), "cudaMalloc");
  p.counters = memory;
  p.arrived = memory + size_t(kCounterStride) * p.repetitions;
  p.early = p.arrived + p.repetitions;
  p.timeouts = p.early + 1;
  auto kernel = variant == "unfixed" ? barrierReuseUnfixed : barrierReuseFixed;

  Result result{"barrier-reuse", variant};
  unsigned early = 0, timeouts = 0;
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(memory, 0, words * 4), "cudaMemset");
    result.seconds += timedLaunch(ctx, "barrier-reuse", [&] { kernel<<<blocks, 32>>>(p); });
    unsigned host[2];
    check(cudaMemcpy(host, p.early, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    early += host[0];
    timeouts += host[1];
    result.trials += static_cast<uint64_t>(blocks) * p.repetitions;
    ++result.launches;
  }
  check(cudaFree(memory), "cudaFree");
  result.violations = early + timeouts;
  if (timeouts) result.status = "timeout";
  result.set("blocks", blocks);
  result.set("repetitions_per_launch", p.repetitions);
  result.set("delay_ns", static_cast<double>(p.delayNs));
  result.set("passed_early", early);
  result.set("timeouts", timeouts);
  return {result};
}

}  // namespace lab::barrier_reuse

lab::ExperimentInfo lab::barrierReuseExperiment() {
  return {"barrier-reuse", "fixed-threshold grid barrier used twice on one counter, one block delayed",
          {"unfixed", "fixed"}, barrier_reuse::runVariant};
}
