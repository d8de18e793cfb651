// bulk-store-exit (issue 30, shape 7): can a CTA that exits while its bulk
// store still reads its shared memory corrupt the output when the next CTA on
// that SM reuses the memory? Each CTA fills a large shared tile with its own
// tag, fences it into the async proxy, meets at bar.sync, and thread 0 stores
// the tile to the CTA's own global slot with one bulk copy. Then the CTA
// exits: without any wait (unfixed), or after cp.async.bulk.wait_group.read 0
// (fixed). Every CTA begins by overwriting its whole tile with a "newcomer"
// pattern (its own id, marked) before anything else, so that a CTA placed on
// the shared memory of one that just exited rewrites that memory at once. The
// tile takes most of the SM's shared memory (kTileBytes + the launch's
// dynamic size), so at most one or two CTAs fit per SM and many waves run:
// every CTA after the first wave starts on memory a previous CTA freed. A
// check kernel counts, per slot, words that are not the slot's own tag:
// a newcomer mark means the store read memory already handed to the next CTA.
// The ISA does not say whether the hardware keeps a CTA's shared memory until
// its bulk reads complete (../shared/ordering-rules.md: strict tier until the
// ISA or this experiment shows it). On an H200 it saw 0 wrong words in 8.4
// million unwaited exits (results/h200/bulk-store-exit/, docs/lab.md).
// Variants:
//   unfixed  exit right after the bulk store's commit            -> bulk-store-reuse (strict)
//   fixed    thread 0 waits with wait_group.read 0 before exiting
#include "../DeviceCommon.cuh"
#include "../Experiment.h"

namespace lab::bulk_store_exit {

constexpr unsigned kThreads = 256;
constexpr unsigned kTileWords = 24 * 1024;  // 96 KB of static + dynamic shared memory below
constexpr unsigned kStaticWords = 12 * 1024;
constexpr unsigned kDynamicWords = kTileWords - kStaticWords;

struct Params {
  uint32_t* destination;  // [ctas][tile words]
};

__host__ __device__ constexpr uint32_t tag(unsigned cta) { return 0x80000000u | (cta & 0x3fffffffu); }
__host__ __device__ constexpr uint32_t newcomer(unsigned cta) { return 0x40000000u | (cta & 0x3fffffffu); }

template <bool kDrain>
__device__ __forceinline__ void storeAndExit(const Params& p) {
  __shared__ __align__(128) uint32_t head[kStaticWords];
  extern __shared__ __align__(128) uint32_t tail[];  // kDynamicWords, contiguous after head in practice
  const unsigned t = threadIdx.x;
  // The newcomer's first act: rewrite the memory the previous CTA may still be storing from.
  for (unsigned j = t; j < kStaticWords; j += kThreads) head[j] = newcomer(blockIdx.x);
  for (unsigned j = t; j < kDynamicWords; j += kThreads) tail[j] = newcomer(blockIdx.x);
  __syncthreads();
  for (unsigned j = t; j < kStaticWords; j += kThreads) head[j] = tag(blockIdx.x);
  for (unsigned j = t; j < kDynamicWords; j += kThreads) tail[j] = tag(blockIdx.x);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (t == 0) {
    uint32_t* slot = p.destination + static_cast<size_t>(blockIdx.x) * kTileWords;
    const uint32_t headBytes = kStaticWords * 4, tailBytes = kDynamicWords * 4;
    uint32_t* tailSlot = slot + kStaticWords;
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(slot), "r"(sharedAddress(head)), "r"(headBytes) : "memory");  // expect-strict: bulk-store-reuse
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(tailSlot), "r"(sharedAddress(tail)), "r"(tailBytes) : "memory");  // expect-strict: bulk-store-reuse
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    if (kDrain) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

__global__ void __launch_bounds__(kThreads) bulkStoreExitUnfixed(const __grid_constant__ Params p) {
  storeAndExit<false>(p);
}
__global__ void __launch_bounds__(kThreads) bulkStoreExitFixed(const __grid_constant__ Params p) {
  storeAndExit<true>(p);
}

// [0] words holding another CTA's newcomer mark (the store read memory the
// next CTA had already rewritten), [1] this CTA's own newcomer mark (the store
// read before the tag landed: a proxy-fence failure, not this hazard),
// [2] anything else wrong (never written, another CTA's tag).
__global__ void countWrong(const uint32_t* destination, unsigned ctas, unsigned long long* counters) {
  const size_t words = static_cast<size_t>(ctas) * kTileWords;
  unsigned foreign = 0, own = 0, other = 0;
  for (size_t w = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; w < words;
       w += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const unsigned cta = static_cast<unsigned>(w / kTileWords);
    const uint32_t v = destination[w];
    if (v == tag(cta)) continue;
    if (v == newcomer(cta)) ++own;
    else if ((v & 0xc0000000u) == 0x40000000u) ++foreign;
    else ++other;
  }
  if (foreign) atomicAdd(&counters[0], static_cast<unsigned long long>(foreign));
  if (own) atomicAdd(&counters[1], static_cast<unsigned long long>(own));
  if (other) atomicAdd(&counters[2], static_cast<unsigned long long>(other));
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  const unsigned ctas = ctx.device->multiProcessorCount * static_cast<unsigned>(ctx.param("bulk-store-exit.waves", 64));
  const size_t words = static_cast<size_t>(ctas) * kTileWords;
  void (*kernel)(Params) = variant == "fixed" ? bulkStoreExitFixed : bulkStoreExitUnfixed;
  const int dynamicBytes = static_cast<int>(kDynamicWords * 4);
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamicBytes), "cudaFuncSetAttribute");
  Params p{};
  unsigned long long* counters = nullptr;
  check(cudaMalloc(&p.destination, words * 4), "cudaMalloc");
  check(cudaMalloc(&counters, 3 * sizeof(unsigned long long)), "cudaMalloc");
  int perSm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads, dynamicBytes), "occupancy");
  Result result{"bulk-store-exit", variant};
  unsigned long long totals[3] = {0, 0, 0};
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(p.destination, 0, words * 4), "cudaMemset");
    check(cudaMemset(counters, 0, 3 * sizeof(unsigned long long)), "cudaMemset");
    result.seconds += timedLaunch(ctx, "bulk-store-exit", [&] { kernel<<<ctas, kThreads, dynamicBytes>>>(p); });
    countWrong<<<1024, 256>>>(p.destination, ctas, counters);
    check(cudaDeviceSynchronize(), "countWrong");
    unsigned long long host[3];
    check(cudaMemcpy(host, counters, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (int k = 0; k < 3; ++k) totals[k] += host[k];
    result.trials += words;
    ++result.launches;
  }
  check(cudaFree(p.destination), "cudaFree");
  check(cudaFree(counters), "cudaFree");
  result.violations = totals[0] + totals[2];
  result.set("next_cta_words", static_cast<double>(totals[0]));
  result.set("own_newcomer_words", static_cast<double>(totals[1]));
  result.set("other_wrong", static_cast<double>(totals[2]));
  result.set("ctas", ctas);
  result.set("ctas_per_sm", perSm);
  result.set("tile_bytes", kTileWords * 4);
  return {result};
}

}  // namespace lab::bulk_store_exit

lab::ExperimentInfo lab::bulkStoreExitExperiment() {
  return {"bulk-store-exit",
          "a CTA exits while its bulk store still reads shared memory; the next CTA on the SM rewrites that memory",
          {"unfixed", "fixed"}, bulk_store_exit::runVariant};
}
