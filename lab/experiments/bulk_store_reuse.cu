// bulk-store-reuse: every round the CTA writes a tile with generic stores
// (fenced into the async proxy), meets at bar.sync, and thread 0 stores the
// tile to that round's global slot with a bulk copy (cp.async.bulk, bulk
// group). The next round rewrites the tile. Unless thread 0 has waited with
// cp.async.bulk.wait_group.read before the barrier that lets the writers go,
// the store may still be reading the tile and send the next round's words.
// A check kernel counts, per slot, words holding the next round's tag.
// Variants:
//   unfixed  no wait before the rewrite                        -> bulk-store-reuse
//   fixed    thread 0 waits (wait_group.read 0), then bar.sync
#include "../DeviceCommon.cuh"
#include "../Experiment.h"

namespace lab::bulk_store_reuse {

constexpr unsigned kThreads = 128;
constexpr unsigned kWordsPerThread = 16;
constexpr unsigned kTileWords = kThreads * kWordsPerThread;  // 8 KB

struct Params {
  uint32_t* destination;  // [rounds][ctas][tile words]
  unsigned rounds;
};

__host__ __device__ constexpr uint32_t tag(unsigned cta, unsigned round) {
  return 0x80000000u | (cta << 16) | (round & 0xffffu);
}

template <bool kWait>
__device__ __forceinline__ void storeRounds(const Params& p) {
  __shared__ __align__(128) uint32_t tile[kTileWords];
  const unsigned t = threadIdx.x;
  for (unsigned round = 0; round < p.rounds; ++round) {
    if (kWait && t == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    __syncthreads();
    for (unsigned j = 0; j < kWordsPerThread; ++j) tile[j * kThreads + t] = tag(blockIdx.x, round);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
      uint32_t* slot = p.destination + (static_cast<size_t>(round) * gridDim.x + blockIdx.x) * kTileWords;
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(slot), "r"(sharedAddress(tile)),
                   "r"(kTileWords * 4)
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
  }
  if (t == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

__global__ void __launch_bounds__(kThreads) bulkStoreReuseUnfixed(const __grid_constant__ Params p) {
  storeRounds<false>(p);  // expect: bulk-store-reuse
}
__global__ void __launch_bounds__(kThreads) bulkStoreReuseFixed(const __grid_constant__ Params p) {
  storeRounds<true>(p);
}

// [0] words of the next round (the store read the rewritten tile), [1] words
// of a later round still, [2] anything else wrong.
__global__ void countWrong(const uint32_t* destination, unsigned rounds, unsigned ctas, unsigned long long* counters) {
  const size_t words = static_cast<size_t>(rounds) * ctas * kTileWords;
  unsigned next = 0, later = 0, other = 0;
  for (size_t w = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; w < words;
       w += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t slot = w / kTileWords;
    const unsigned round = static_cast<unsigned>(slot / ctas), cta = static_cast<unsigned>(slot % ctas);
    const uint32_t v = destination[w];
    if (v == tag(cta, round)) continue;
    if (v == tag(cta, round + 1)) ++next;
    else if ((v & 0xffff0000u) == (tag(cta, 0) & 0xffff0000u) && (v & 0xffffu) > (round & 0xffffu)) ++later;
    else ++other;
  }
  if (next) atomicAdd(&counters[0], static_cast<unsigned long long>(next));
  if (later) atomicAdd(&counters[1], static_cast<unsigned long long>(later));
  if (other) atomicAdd(&counters[2], static_cast<unsigned long long>(other));
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  const unsigned ctas = ctx.device->multiProcessorCount * static_cast<unsigned>(ctx.param("bulk-store-reuse.ctas_per_sm", 4));
  Params p{};
  p.rounds = static_cast<unsigned>(ctx.param("bulk-store-reuse.rounds", 500));
  const size_t words = static_cast<size_t>(p.rounds) * ctas * kTileWords;
  unsigned long long* counters = nullptr;
  check(cudaMalloc(&p.destination, words * 4), "cudaMalloc");
  check(cudaMalloc(&counters, 3 * sizeof(unsigned long long)), "cudaMalloc");
  void (*kernel)(Params) = variant == "fixed" ? bulkStoreReuseFixed : bulkStoreReuseUnfixed;
  Result result{"bulk-store-reuse", variant};
  unsigned long long totals[3] = {0, 0, 0};
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(p.destination, 0, words * 4), "cudaMemset");
    check(cudaMemset(counters, 0, 3 * sizeof(unsigned long long)), "cudaMemset");
    result.seconds += timedLaunch(ctx, "bulk-store-reuse", [&] { kernel<<<ctas, kThreads>>>(p); });
    countWrong<<<1024, 256>>>(p.destination, p.rounds, ctas, counters);
    check(cudaDeviceSynchronize(), "countWrong");
    unsigned long long host[3];
    check(cudaMemcpy(host, counters, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (int k = 0; k < 3; ++k) totals[k] += host[k];
    result.trials += words;
    ++result.launches;
  }
  check(cudaFree(p.destination), "cudaFree");
  check(cudaFree(counters), "cudaFree");
  result.violations = totals[0] + totals[1] + totals[2];
  result.set("next_round", static_cast<double>(totals[0]));
  result.set("later_round", static_cast<double>(totals[1]));
  result.set("other_wrong", static_cast<double>(totals[2]));
  result.set("ctas", ctas);
  result.set("threads", kThreads);
  result.set("rounds_per_launch", p.rounds);
  result.set("tile_bytes", kTileWords * 4);
  if (result.launches) result.set("ns_per_round", result.seconds / result.launches / p.rounds * 1e9);
  return {result};
}

}  // namespace lab::bulk_store_reuse

lab::ExperimentInfo lab::bulkStoreReuseExperiment() {
  return {"bulk-store-reuse", "bulk store of a shared tile, then the next round rewrites it (wait_group.read or not)",
          {"unfixed", "fixed"}, bulk_store_reuse::runVariant};
}
