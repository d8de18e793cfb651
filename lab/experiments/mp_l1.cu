// mp-l1: message passing where the consumer already holds the payload's line in
// its L1. Each consumer reads the payload once, tells its producer (another SM)
// it is ready, spins on a flag with relaxed (volatile) loads, and reads the
// payload again. Without an acquire after the spin, the second read may be
// served from the L1 line the first read filled: the stale value. Variants:
//   unfixed  volatile spin, nothing after it          -> acquire-missing
//   fixed    relaxed spin (ld.relaxed.gpu), then fence.acq_rel.gpu
//   acquire  the spin polls with ld.acquire.gpu
// The fixed and acquire variants are built from include/fenceline/atomic.cuh
// (fenceline::atomic_load, fenceline::fence); the unfixed spin stays hand-written.
// One instance = one producer thread and one consumer thread; grid = one block
// per SM, the first half producers, the second half consumers.
#include "../../include/fenceline/atomic.cuh"
#include "../DeviceCommon.cuh"
#include "../Experiment.h"

namespace lab::mp_l1 {

using fenceline::Scope;
using fenceline::Sem;

struct Params {
  unsigned* payload;  // one word per instance
  unsigned* flag;     // producer -> consumer: "payload of round r is written"
  unsigned* ready;    // consumer -> producer: "I hold round r-1's payload in L1"
  unsigned* stale;    // violations
  unsigned* timeouts;
  unsigned* sameSm;   // instances whose producer and consumer shared an SM
  unsigned* smOf;     // SM of each producer block
  unsigned rounds;
  unsigned instances;
  uint64_t timeoutNs;
};

// The producer side is correct in every variant: it polls `ready` with acquire,
// writes the payload, and publishes it with a release store.
__device__ void produce(const Params& p, unsigned i, uint64_t deadline) {
  for (unsigned r = 1; r <= p.rounds; ++r) {
    while (loadAcquireGpu(&p.ready[i]) != r)
      if (pastDeadline(deadline)) return noteTimeout(p.timeouts);
    p.payload[i] = r;
    storeReleaseGpu(&p.flag[i], r);
  }
}

// The consumer: read the payload (fills L1), signal ready, wait for the flag
// (variant-specific `waitFlag`), read the payload again and compare.
template <class WaitFlag>
__device__ void consume(const Params& p, unsigned i, uint64_t deadline, WaitFlag waitFlag) {
  unsigned stale = 0, sink = 0;
  for (unsigned r = 1; r <= p.rounds; ++r) {
    sink += p.payload[i];  // fills this SM's L1 with the line
    storeRelaxedGpu(&p.ready[i], r);
    if (!waitFlag(&p.flag[i], r, deadline)) return noteTimeout(p.timeouts);
    const unsigned seen = p.payload[i];
    stale += seen != r;
  }
  atomicAdd(p.stale, stale);
  if (sink == 0xffffffffu) p.sameSm[1] = sink;  // keeps the first read alive
}

template <class WaitFlag>
__device__ void run(const Params& p, WaitFlag waitFlag) {
  const unsigned half = gridDim.x / 2;
  const bool producer = blockIdx.x < half;
  const unsigned i = (blockIdx.x % half) * blockDim.x + threadIdx.x;
  const uint64_t deadline = deadlineAfter(p.timeoutNs);
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (producer) {
    if (threadIdx.x == 0) p.smOf[blockIdx.x] = sm;
    if (i < p.instances) produce(p, i, deadline);
  } else {
    if (i < p.instances) consume(p, i, deadline, waitFlag);
    if (threadIdx.x == 0 && loadRelaxedGpu(&p.smOf[blockIdx.x % half]) == sm) atomicAdd(p.sameSm, 1u);
  }
}

// The spin loops leave by a break on timeout, so that whatever follows the loop
// (the fence of `fixed`) lies on every exit path.
__global__ void mpL1Unfixed(Params p) {
  run(p, [](unsigned* flag, unsigned r, uint64_t deadline) {
    bool seen = true;
    while (*static_cast<volatile unsigned*>(flag) != r)  // expect: acquire-missing
      if (pastDeadline(deadline)) {
        seen = false;
        break;
      }
    return seen;
  });
}

__global__ void mpL1Fixed(Params p) {
  run(p, [](unsigned* flag, unsigned r, uint64_t deadline) {
    bool seen = true;
    while (fenceline::atomic_load<Sem::relaxed, Scope::gpu>(flag) != r)
      if (pastDeadline(deadline)) {
        seen = false;
        break;
      }
    fenceline::fence<Sem::acq_rel, Scope::gpu>();
    return seen;
  });
}

__global__ void mpL1Acquire(Params p) {
  run(p, [](unsigned* flag, unsigned r, uint64_t deadline) {
    unsigned seen;
    do {
      seen = fenceline::atomic_load<Sem::acquire, Scope::gpu>(flag);
      if (seen != r && pastDeadline(deadline)) return false;
    } while (seen != r);
    return true;
  });
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  const unsigned blocks = ctx.device->multiProcessorCount & ~1u;
  const unsigned threads = static_cast<unsigned>(ctx.param("mp-l1.threads", 512));
  const unsigned rounds = static_cast<unsigned>(ctx.param("mp-l1.rounds", 200));
  const unsigned instances = blocks / 2 * threads;
  auto kernel = variant == "unfixed" ? mpL1Unfixed : variant == "fixed" ? mpL1Fixed : mpL1Acquire;

  Params p{};
  p.rounds = rounds;
  p.instances = instances;
  p.timeoutNs = 2'000'000'000ull;
  unsigned* words = nullptr;
  const size_t counterWords = 8 + blocks;
  check(cudaMalloc(&words, (3ull * instances + counterWords) * sizeof(unsigned)), "cudaMalloc");
  p.payload = words;
  p.flag = words + instances;
  p.ready = words + 2ull * instances;
  unsigned* counters = words + 3ull * instances;
  p.stale = counters;
  p.timeouts = counters + 1;
  p.sameSm = counters + 2;
  p.smOf = counters + 8;

  Result result{"mp-l1", variant};
  const auto began = std::chrono::steady_clock::now();
  unsigned totals[3] = {0, 0, 0};
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(words, 0, (3ull * instances + counterWords) * sizeof(unsigned)), "cudaMemset");
    result.seconds += timedLaunch(ctx, "mp-l1", [&] { kernel<<<blocks, threads>>>(p); });
    unsigned host[3];
    check(cudaMemcpy(host, counters, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (int k = 0; k < 3; ++k) totals[k] += host[k];
    result.trials += static_cast<uint64_t>(instances) * rounds;
    ++result.launches;
  }
  check(cudaFree(words), "cudaFree");
  result.violations = totals[0];
  if (totals[1]) result.status = "timeout";
  result.set("instances", instances);
  result.set("rounds_per_launch", rounds);
  result.set("blocks", blocks);
  result.set("threads", threads);
  result.set("timeouts", totals[1]);
  result.set("same_sm_pairs", totals[2]);
  return {result};
}

}  // namespace lab::mp_l1

lab::ExperimentInfo lab::mpL1Experiment() {
  return {"mp-l1", "consumer holds the payload in L1, spins on a relaxed flag, reads again",
          {"unfixed", "fixed", "acquire"}, mp_l1::runVariant};
}
