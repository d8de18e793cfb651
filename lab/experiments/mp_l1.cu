// mp-l1: message passing where the consumer already holds the payload's line in
// its L1. Each consumer reads the payload once, tells its producer (another SM)
// it is ready, spins on a flag with relaxed (volatile) loads, and reads the
// payload again. Without an acquire after the spin, the second read may be
// served from the L1 line the first read filled: the stale value. Variants:
//   unfixed  volatile spin, nothing after it          -> acquire-missing
//   fixed    relaxed spin (ld.relaxed.gpu), then fence.acq_rel.gpu
//   acquire  the spin polls with ld.acquire.gpu
//   volatile-read  as unfixed, the second read ld.volatile (no L1: the CUDA
//                  Programming Guide's last-block idiom)  -> acquire-missing, strict tier
//   cg-read        as unfixed, the second read ld.global.cg (__ldcg) -> acquire-missing, strict tier
// The last two ask whether a read that bypasses L1 after a relaxed spin is
// ever stale on hardware (docs/checks/acquire-missing.md, "Volatile-style reads").
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

// How the consumer reads the payload after the wait.
struct PlainRead {
  __device__ unsigned operator()(const unsigned* p) const { return *p; }
};
struct VolatileRead {
  __device__ unsigned operator()(const unsigned* p) const { return *static_cast<const volatile unsigned*>(p); }
};
struct CgRead {
  __device__ unsigned operator()(const unsigned* p) const { return __ldcg(p); }
};

// The consumer: read the payload (fills L1), signal ready, wait for the flag
// (variant-specific `waitFlag`), read the payload again (`reread`) and compare.
template <class WaitFlag, class Reread = PlainRead>
__device__ void consume(const Params& p, unsigned i, uint64_t deadline, WaitFlag waitFlag, Reread reread = {}) {
  unsigned stale = 0, sink = 0;
  for (unsigned r = 1; r <= p.rounds; ++r) {
    sink += p.payload[i];  // fills this SM's L1 with the line
    storeRelaxedGpu(&p.ready[i], r);
    if (!waitFlag(&p.flag[i], r, deadline)) return noteTimeout(p.timeouts);
    const unsigned seen = reread(&p.payload[i]);
    stale += seen != r;
  }
  atomicAdd(p.stale, stale);
  if (sink == 0xffffffffu) p.sameSm[1] = sink;  // keeps the first read alive
}

template <class WaitFlag, class Reread = PlainRead>
__device__ void run(const Params& p, WaitFlag waitFlag, Reread reread = {}) {
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
    if (i < p.instances) consume(p, i, deadline, waitFlag, reread);
    if (threadIdx.x == 0 && loadRelaxedGpu(&p.smOf[blockIdx.x % half]) == sm) atomicAdd(p.sameSm, 1u);
  }
}

// The spin loops leave by a break on timeout, so that whatever follows the loop
// (the fence of `fixed`) lies on every exit path.
// The unfixed spin: volatile loads, nothing after the loop. One copy per
// variant, so that each variant's finding has a line of its own. The finding
// of the two volatile-style variants is a warning, but not for the payload's
// re-read (volatile-style: strict tier alone): in cg-read it names the next
// round's plain read that fills L1 (it too follows the wait); in
// volatile-read (where nvcc gives that read the volatile read's value) the
// bookkeeping ld.relaxed.gpu of the producer's SM after the last wait.
__device__ __forceinline__ bool spinVolatile(unsigned* flag, unsigned r, uint64_t deadline) {
  bool seen = true;
  while (*static_cast<volatile unsigned*>(flag) != r)  // expect: acquire-missing
    if (pastDeadline(deadline)) {
      seen = false;
      break;
    }
  return seen;
}
__device__ __forceinline__ bool spinVolatileThenVolatileRead(unsigned* flag, unsigned r, uint64_t deadline) {
  bool seen = true;
  while (*static_cast<volatile unsigned*>(flag) != r)  // expect: acquire-missing
    if (pastDeadline(deadline)) {
      seen = false;
      break;
    }
  return seen;
}
__device__ __forceinline__ bool spinVolatileThenCgRead(unsigned* flag, unsigned r, uint64_t deadline) {
  bool seen = true;
  while (*static_cast<volatile unsigned*>(flag) != r)  // expect: acquire-missing
    if (pastDeadline(deadline)) {
      seen = false;
      break;
    }
  return seen;
}

__global__ void mpL1Unfixed(Params p) { run(p, spinVolatile); }
__global__ void mpL1VolatileRead(Params p) { run(p, spinVolatileThenVolatileRead, VolatileRead{}); }
__global__ void mpL1CgRead(Params p) { run(p, spinVolatileThenCgRead, CgRead{}); }

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
  auto kernel = variant == "unfixed"         ? mpL1Unfixed
                : variant == "fixed"         ? mpL1Fixed
                : variant == "volatile-read" ? mpL1VolatileRead
                : variant == "cg-read"       ? mpL1CgRead
                                             : mpL1Acquire;

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
          {"unfixed", "fixed", "acquire", "volatile-read", "cg-read"}, mp_l1::runVariant};
}
