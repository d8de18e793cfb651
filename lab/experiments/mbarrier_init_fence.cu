// mbarrier-init-fence: every round thread 0 invalidates and re-initializes
// the CTA's mbarrier, then at once arms it (arrive.expect_tx) and issues a
// bulk copy global -> shared that completes on it (complete_tx by the async
// proxy). Without fence.mbarrier_init.release.cluster the async proxy may
// see the barrier as it was before the init: the phase never completes (a
// timeout of the %globaltimer watchdog) or completes with the copy not done
// (wrong words). Both are counted.
// Variants:
//   unfixed  init, then the copy                                -> mbarrier-init-fence
//   fixed    init, fence.mbarrier_init.release.cluster, then the copy
#include "../DeviceCommon.cuh"
#include "../Experiment.h"

namespace lab::mbarrier_init_fence {

constexpr unsigned kThreads = 128;
constexpr unsigned kTileWords = 1024;  // 4 KB

struct Params {
  const uint32_t* source;  // [rounds][kTileWords], word = round tag
  unsigned long long* wrong;
  unsigned* timeouts;
  unsigned rounds;
  uint64_t timeoutNs;
};

__host__ __device__ constexpr uint32_t tag(unsigned round) { return 0x80000000u | round; }

template <bool kFence>
__device__ __forceinline__ void initRounds(const Params& p) {
  __shared__ __align__(128) uint32_t tile[kTileWords];
  __shared__ __align__(8) uint64_t full;
  const uint32_t bar = sharedAddress(&full);
  const unsigned t = threadIdx.x;
  unsigned long long wrong = 0;
  for (unsigned round = 0; round < p.rounds; ++round) {
    if (t == 0) {
      if (round > 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
      mbarrierInit(bar, 1);
      if (kFence) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
      mbarrierArriveExpectTx(bar, kTileWords * 4);
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                       sharedAddress(tile)),
                   "l"(p.source + static_cast<size_t>(round) * kTileWords), "r"(kTileWords * 4), "r"(bar)
                   : "memory");
    }
    __syncthreads();
    if (!mbarrierWait(bar, 0, deadlineAfter(p.timeoutNs))) {
      noteTimeout(p.timeouts);
      break;
    }
    for (unsigned j = t; j < kTileWords; j += kThreads)
      if (tile[j] != tag(round)) ++wrong;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // every reader, before the next fill
    __syncthreads();
  }
  if (wrong) atomicAdd(p.wrong, wrong);
}

__global__ void __launch_bounds__(kThreads) mbarrierInitFenceUnfixed(const __grid_constant__ Params p) {
  initRounds<false>(p);  // expect-strict: mbarrier-init-fence
}
__global__ void __launch_bounds__(kThreads) mbarrierInitFenceFixed(const __grid_constant__ Params p) {
  initRounds<true>(p);
}

__global__ void fillSource(uint32_t* source, unsigned rounds) {
  const size_t words = static_cast<size_t>(rounds) * kTileWords;
  for (size_t w = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; w < words;
       w += static_cast<size_t>(gridDim.x) * blockDim.x)
    source[w] = tag(static_cast<unsigned>(w / kTileWords));
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  const unsigned ctas = ctx.device->multiProcessorCount * static_cast<unsigned>(ctx.param("mbarrier-init-fence.ctas_per_sm", 4));
  Params p{};
  p.rounds = static_cast<unsigned>(ctx.param("mbarrier-init-fence.rounds", 2000));
  p.timeoutNs = static_cast<uint64_t>(ctx.param("mbarrier-init-fence.timeout_ms", 200)) * 1000000ull;
  uint32_t* source = nullptr;
  check(cudaMalloc(&source, static_cast<size_t>(p.rounds) * kTileWords * 4), "cudaMalloc");
  check(cudaMalloc(&p.wrong, sizeof(unsigned long long)), "cudaMalloc");
  check(cudaMalloc(&p.timeouts, sizeof(unsigned)), "cudaMalloc");
  fillSource<<<1024, 256>>>(source, p.rounds);
  check(cudaDeviceSynchronize(), "fillSource");
  p.source = source;
  void (*kernel)(Params) = variant == "fixed" ? mbarrierInitFenceFixed : mbarrierInitFenceUnfixed;
  Result result{"mbarrier-init-fence", variant};
  unsigned long long wrongTotal = 0;
  unsigned timeoutTotal = 0;
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(p.wrong, 0, sizeof(unsigned long long)), "cudaMemset");
    check(cudaMemset(p.timeouts, 0, sizeof(unsigned)), "cudaMemset");
    result.seconds += timedLaunch(ctx, "mbarrier-init-fence", [&] { kernel<<<ctas, kThreads>>>(p); });
    unsigned long long wrong = 0;
    unsigned timeouts = 0;
    check(cudaMemcpy(&wrong, p.wrong, sizeof wrong, cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaMemcpy(&timeouts, p.timeouts, sizeof timeouts, cudaMemcpyDeviceToHost), "cudaMemcpy");
    wrongTotal += wrong;
    timeoutTotal += timeouts;
    result.trials += static_cast<unsigned long long>(ctas) * p.rounds;  // one trial = one init + copy
    ++result.launches;
  }
  check(cudaFree(source), "cudaFree");
  check(cudaFree(p.wrong), "cudaFree");
  check(cudaFree(p.timeouts), "cudaFree");
  // Violations: rounds whose phase never completed (the CTA stops there), plus
  // wrong words in tile units (rounded up); both raw counts are in the params.
  result.violations = timeoutTotal + (wrongTotal + kTileWords - 1) / kTileWords;
  result.set("timeouts", static_cast<double>(timeoutTotal));
  result.set("wrong_words", static_cast<double>(wrongTotal));
  result.set("ctas", ctas);
  result.set("rounds_per_launch", p.rounds);
  if (result.launches) result.set("ns_per_round", result.seconds / result.launches / p.rounds * 1e9);
  return {result};
}

}  // namespace lab::mbarrier_init_fence

lab::ExperimentInfo lab::mbarrierInitFenceExperiment() {
  return {"mbarrier-init-fence", "re-init an mbarrier, then at once a bulk copy completes on it (fence or not)",
          {"unfixed", "fixed"}, mbarrier_init_fence::runVariant};
}
