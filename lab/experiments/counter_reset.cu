// counter-reset: a grid barrier on one counter that is reset for its next use
// (issue 30, shape 5). One thread per block (one block per SM) arrives with an
// acq_rel add and waits until the count reaches the number of blocks, round
// after round on the same word. Who resets the count, and when, decides
// whether a waiter can miss the completed count:
//   last-resets  the last arriver stores 0 at once: a waiter that did not
//                read the count between the last add and the reset never
//                sees it complete                                 -> counter-reset
//   each-resets  every block stores 0 after its own wait: the first block out
//                zeroes the count before slower blocks saw it     -> counter-reset
//   fixed        a generation word: every block reads it before arriving; the
//                last arriver resets the count, then bumps the generation
//                (release); the others wait for the generation to change
// A waiter gives up after `counter-reset.timeout_us` (default 200 us; a
// barrier round takes a few microseconds); a round a block gave up on is a
// violation. Rounds share the counter, as a barrier reused in a loop does.
#include "../DeviceCommon.cuh"
#include "../Experiment.h"

namespace lab::counter_reset {

struct Params {
  unsigned* count;       // the barrier's counter
  unsigned* generation;  // the fixed variant's generation word
  unsigned* missed;      // block-rounds that gave up waiting
  unsigned rounds;
  uint64_t timeoutNs;
};

__device__ __forceinline__ unsigned addAcqRelGpu(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}

__global__ void lastResets(Params p) {
  if (threadIdx.x != 0) return;
  unsigned missed = 0;
  for (unsigned r = 0; r < p.rounds; ++r) {
    const uint64_t deadline = deadlineAfter(p.timeoutNs);
    if (addAcqRelGpu(p.count, 1u) == gridDim.x - 1) {
      storeRelaxedGpu(p.count, 0u);  // expect: counter-reset
    } else {
      while (loadAcquireGpu(p.count) < gridDim.x)
        if (pastDeadline(deadline)) {
          ++missed;
          break;
        }
    }
  }
  if (missed) atomicAdd(p.missed, missed);
}

__global__ void eachResets(Params p) {
  if (threadIdx.x != 0) return;
  unsigned missed = 0;
  for (unsigned r = 0; r < p.rounds; ++r) {
    const uint64_t deadline = deadlineAfter(p.timeoutNs);
    addAcqRelGpu(p.count, 1u);
    while (loadAcquireGpu(p.count) < gridDim.x)
      if (pastDeadline(deadline)) {
        ++missed;
        break;
      }
    storeRelaxedGpu(p.count, 0u);  // expect: counter-reset
  }
  if (missed) atomicAdd(p.missed, missed);
}

__global__ void generationFixed(Params p) {
  if (threadIdx.x != 0) return;
  unsigned missed = 0;
  for (unsigned r = 0; r < p.rounds; ++r) {
    const uint64_t deadline = deadlineAfter(p.timeoutNs);
    const unsigned gen = loadAcquireGpu(p.generation);
    if (addAcqRelGpu(p.count, 1u) == gridDim.x - 1) {
      storeRelaxedGpu(p.count, 0u);
      storeReleaseGpu(p.generation, gen + 1);
    } else {
      while (loadAcquireGpu(p.generation) == gen)
        if (pastDeadline(deadline)) {
          ++missed;
          break;
        }
    }
  }
  if (missed) atomicAdd(p.missed, missed);
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  const unsigned blocks = ctx.device->multiProcessorCount;
  Params p{};
  p.rounds = static_cast<unsigned>(ctx.param("counter-reset.rounds", 1000));
  p.timeoutNs = static_cast<uint64_t>(ctx.param("counter-reset.timeout_us", 200)) * 1000;
  // The counter and the generation word on lines of their own.
  constexpr size_t kLine = 32;
  unsigned* memory = nullptr;
  check(cudaMalloc(&memory, 3 * kLine * 4), "cudaMalloc");
  p.count = memory;
  p.generation = memory + kLine;
  p.missed = memory + 2 * kLine;
  auto kernel = variant == "last-resets" ? lastResets : variant == "each-resets" ? eachResets : generationFixed;

  Result result{"counter-reset", variant};
  uint64_t missed = 0;
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(memory, 0, 3 * kLine * 4), "cudaMemset");
    result.seconds += timedLaunch(ctx, "counter-reset", [&] { kernel<<<blocks, 32>>>(p); });
    unsigned host = 0;
    check(cudaMemcpy(&host, p.missed, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    missed += host;
    result.trials += static_cast<uint64_t>(blocks) * p.rounds;
    ++result.launches;
  }
  check(cudaFree(memory), "cudaFree");
  result.violations = missed;
  result.set("blocks", blocks);
  result.set("rounds_per_launch", p.rounds);
  result.set("timeout_us", static_cast<double>(p.timeoutNs / 1000));
  return {result};
}

}  // namespace lab::counter_reset

lab::ExperimentInfo lab::counterResetExperiment() {
  return {"counter-reset", "a grid barrier's counter reset for its next use: by the last arriver, by everyone, "
                           "or with a generation word",
          {"last-resets", "each-resets", "fixed"}, counter_reset::runVariant};
}
