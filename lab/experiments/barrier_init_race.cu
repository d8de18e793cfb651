// barrier-init-race: a grid barrier whose counter block 0 zeroes inside the
// kernel that uses it, the way a kernel launched again and again would. Block 0
// is late (a %globaltimer delay), so the other blocks arrive on whatever the
// counter held before; block 0's store then wipes their arrivals. Depending on
// what the counter held, blocks pass early (leftover count from the last
// launch) or wait forever (their arrivals erased): both are counted, and the
// %globaltimer watchdog in the wait turns a hang into a "timed out" count.
// Variants:
//   unfixed  block 0 zeroes the counter in the kernel    -> barrier-init-race
//   fixed    fenceline::GridBarrier (include/fenceline/grid_barrier.cuh): its
//            word is zeroed by the host (GridBarrier::create) once, reused by
//            every repetition and launch; block 0 is still late; the wait is
//            the library's bounded sync_until
// The unfixed counters persist from launch to launch (the host zeroes them once,
// at start).
#include "../../include/fenceline/grid_barrier.cuh"
#include "../DeviceCommon.cuh"
#include "../Experiment.h"
#include "CounterBarrier.cuh"

namespace lab::barrier_init_race {

struct Params {
  unsigned* counters;  // one per repetition, 128 bytes apart
  unsigned* arrived;   // arrivals counted separately (zeroed by the host every launch)
  unsigned* early;
  unsigned* timeouts;
  unsigned repetitions;
  uint64_t delayNs;
  uint64_t timeoutNs;  // per repetition
};

__device__ void countOutcome(const Params& p, unsigned r, bool timedOut) {
  if (timedOut) noteTimeout(p.timeouts);
  else if (loadAcquireGpu(&p.arrived[r]) < gridDim.x) atomicAdd(p.early, 1u);
}

__global__ void barrierInitRaceUnfixed(Params p) {
  if (threadIdx.x != 0) return;
  for (unsigned r = 0; r < p.repetitions; ++r) {
    unsigned* counter = p.counters + 32 * r;
    if (blockIdx.x == 0) {
      delayNs(p.delayNs);
      *counter = 0;  // expect: barrier-init-race
    }
    atomicAdd(&p.arrived[r], 1u);
    bool timedOut = false;
    const uint64_t deadline = deadlineAfter(p.timeoutNs);
    FIXED_THRESHOLD_BARRIER(counter, gridDim.x, deadline, timedOut);
    countOutcome(p, r, timedOut);
  }
}

// The fixed variant is the library's fenceline::GridBarrier: its word is created
// and zeroed on the host (GridBarrier::create) once, never written by the kernel,
// and the phase bit makes it reusable across repetitions and launches, so the
// late block 0 can neither wipe arrivals nor find a leftover count. Every thread
// of the block calls the barrier (it contains __syncthreads); thread 0 counts.
__global__ void barrierInitRaceFixed(Params p, fenceline::GridBarrier barrier) {
  for (unsigned r = 0; r < p.repetitions; ++r) {
    if (threadIdx.x == 0) {
      if (blockIdx.x == 0) delayNs(p.delayNs);
      atomicAdd(&p.arrived[r], 1u);
    }
    const bool passed = barrier.sync_until(deadlineAfter(p.timeoutNs));
    if (threadIdx.x == 0) countOutcome(p, r, !passed);
  }
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  const unsigned blocks = ctx.device->multiProcessorCount;
  Params p{};
  p.repetitions = static_cast<unsigned>(ctx.param("barrier-init-race.repetitions", 32));
  p.delayNs = static_cast<uint64_t>(ctx.param("barrier-init-race.delay_ns", 20000));
  p.timeoutNs = static_cast<uint64_t>(ctx.param("barrier-init-race.timeout_ns", 1000000));
  const bool fixed = variant == "fixed";
  const size_t counterWords = 32ull * p.repetitions;
  unsigned *counters = nullptr, *perLaunch = nullptr;
  check(cudaMalloc(&counters, counterWords * 4), "cudaMalloc");
  check(cudaMalloc(&perLaunch, (p.repetitions + 2) * 4), "cudaMalloc");
  check(cudaMemset(counters, 0, counterWords * 4), "cudaMemset");
  p.counters = counters;
  p.arrived = perLaunch;
  p.early = perLaunch + p.repetitions;
  p.timeouts = p.early + 1;
  fenceline::GridBarrier barrier;
  if (fixed) check(fenceline::GridBarrier::create(&barrier), "GridBarrier::create");

  Result result{"barrier-init-race", variant};
  unsigned early = 0, timeouts = 0;
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(perLaunch, 0, (p.repetitions + 2) * 4), "cudaMemset");
    result.seconds += timedLaunch(ctx, "barrier-init-race", [&] {
      if (fixed) barrierInitRaceFixed<<<blocks, 32>>>(p, barrier);
      else barrierInitRaceUnfixed<<<blocks, 32>>>(p);
    });
    unsigned host[2];
    check(cudaMemcpy(host, p.early, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    // A timed-out episode leaves a partial count in the library barrier's word.
    if (fixed && host[1]) check(barrier.reset(), "GridBarrier::reset");
    early += host[0];
    timeouts += host[1];
    result.trials += static_cast<uint64_t>(blocks) * p.repetitions;
    ++result.launches;
  }
  if (fixed) check(barrier.destroy(), "GridBarrier::destroy");
  check(cudaFree(counters), "cudaFree");
  check(cudaFree(perLaunch), "cudaFree");
  result.violations = early + timeouts;
  // Timeouts are the hazard's own outcome here (the watchdog caught a hang),
  // not a failure of the run.
  result.set("blocks", blocks);
  result.set("repetitions_per_launch", p.repetitions);
  result.set("delay_ns", static_cast<double>(p.delayNs));
  result.set("wait_timeout_ns", static_cast<double>(p.timeoutNs));
  result.set("passed_early", early);
  result.set("timed_out", timeouts);
  return {result};
}

}  // namespace lab::barrier_init_race

lab::ExperimentInfo lab::barrierInitRaceExperiment() {
  return {"barrier-init-race", "grid barrier counter zeroed in-kernel by a late block 0 vs by the host",
          {"unfixed", "fixed"}, barrier_init_race::runVariant};
}
