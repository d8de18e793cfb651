// proxy-raw and proxy-raw-tma: every thread of a CTA writes its part of a tile
// with generic shared stores, the CTA meets at bar.sync, and thread 0 stores the
// tile to global memory with a bulk copy (cp.async.bulk) or a TMA tensor store
// (cp.async.bulk.tensor), both async-proxy reads of shared memory. Without a
// fence.proxy.async on the path from every write to that read, the copy may
// read the tile's previous contents (shared/ordering-rules.md, "proxy-raw").
// Each round goes to its own global tile; a check kernel compares every word
// with the round's tag afterwards. Variants:
//   unfixed       writes, bar.sync, store                            -> proxy-raw
//   fixed         every writer fences before bar.sync (the tma_store.cuh epilogue)
//   issuer-fence  thread 0 fences after bar.sync, before the store
#include <cuda.h>

#include "../../include/fenceline/tma_store.cuh"
#include "../DeviceCommon.cuh"
#include "../Experiment.h"
#include "../TensorMap.h"

namespace lab::proxy_raw {

enum class Copy { Bulk, Tensor };

constexpr unsigned kWordsPerThread = 16;
constexpr unsigned kThreads = 128;
constexpr unsigned kTileBytes = kThreads * kWordsPerThread * 4;  // 8 KB
constexpr unsigned kTensorCols = 64;
constexpr unsigned kTileRows = kTileBytes / (kTensorCols * 4);

struct Params {
  CUtensorMap tensorMap;  // the destination as a [tiles * 32 rows x 64] word tensor
  uint32_t* destination;  // [rounds][ctas][tile words]
  unsigned rounds;
  unsigned bankConflicts;
};

__host__ __device__ constexpr uint32_t tileTag(unsigned cta, unsigned round) {
  return 0x80000000u | (cta << 16) | (round & 0xffffu);
}

// This thread's 16 words of the round's tile, at `base` (a shared address).
__device__ __forceinline__ void writeTile(const Params& p, uint32_t base, uint32_t tag) {
  const unsigned t = threadIdx.x;
  const bool conflicts = p.bankConflicts != 0;
  // Conflicted: 16 threads of a warp 128 words apart -> one bank per half-warp.
  const uint32_t offset = conflicts ? ((t & 15) * 128 + (t >> 4) * 16) * 4 : t * 4;
  const uint32_t step = conflicts ? 4 : kThreads * 4;
#pragma unroll
  for (unsigned j = 0; j < kWordsPerThread; ++j) storeShared(base + offset + j * step, tag);
}

// Writes this thread's 16 words of the tile, then runs the variant's
// `beforeBarrier`, bar.sync, the variant's `storeTile` on thread 0 (which
// waits until the copy has read shared memory), and bar.sync again.
template <class BeforeBarrier, class StoreTile>
__device__ void tileRounds(const Params& p, BeforeBarrier beforeBarrier, StoreTile storeTile) {
  __shared__ __align__(128) uint32_t tile[kTileBytes / 4];
  const unsigned t = threadIdx.x;
  const uint32_t base = sharedAddress(tile);
  for (unsigned round = 0; round < p.rounds; ++round) {
    writeTile(p, base, tileTag(blockIdx.x, round));
    beforeBarrier();
    __syncthreads();
    if (t == 0) {
      const size_t index = static_cast<size_t>(round) * gridDim.x + blockIdx.x;
      storeTile(base, p.destination + index * (kTileBytes / 4), static_cast<int>(index * kTileRows));
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    __syncthreads();
  }
  if (t == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

template <Copy C>
__global__ void __launch_bounds__(kThreads) proxyRawUnfixed(const __grid_constant__ Params p) {
  tileRounds(p, [] {}, [&](uint32_t src, uint32_t* dst, int row) {
    if constexpr (C == Copy::Bulk)
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(kTileBytes) : "memory");  // expect: proxy-raw
    else
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&p.tensorMap), "r"(0), "r"(row), "r"(src) : "memory");  // expect: proxy-raw
  });
}

// The fixed variant is the library's epilogue (include/fenceline/tma_store.cuh):
// store_publish() runs fence.proxy.async.shared::cta in every writer, then
// bar.sync; thread 0 stores and commits the group (store_bulk/store_tensor_2d);
// store_reclaim() waits until the copy has read the tile, then bar.sync. The
// instruction sequence is the one the hand-written fixed variant had.
template <Copy C>
__global__ void __launch_bounds__(kThreads) proxyRawFixed(const __grid_constant__ Params p) {
  __shared__ __align__(128) uint32_t tile[kTileBytes / 4];
  const bool issuer = threadIdx.x == 0;
  for (unsigned round = 0; round < p.rounds; ++round) {
    writeTile(p, sharedAddress(tile), tileTag(blockIdx.x, round));
    fenceline::store_publish();
    if (issuer) {
      const size_t index = static_cast<size_t>(round) * gridDim.x + blockIdx.x;
      if constexpr (C == Copy::Bulk)
        fenceline::store_bulk(p.destination + index * (kTileBytes / 4), tile, kTileBytes);
      else
        fenceline::store_tensor_2d(&p.tensorMap, 0, static_cast<int>(index * kTileRows), tile);
    }
    fenceline::store_reclaim(issuer);
  }
  if (issuer) fenceline::store_drain();
}

template <Copy C>
__global__ void __launch_bounds__(kThreads) proxyRawIssuerFence(const __grid_constant__ Params p) {
  tileRounds(p, [] {}, [&](uint32_t src, uint32_t* dst, int row) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if constexpr (C == Copy::Bulk)
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(kTileBytes) : "memory");
    else
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&p.tensorMap), "r"(0), "r"(row), "r"(src) : "memory");
  });
}

// Counts words that differ from their round's tag: [0] the previous round's
// tag (the copy read the tile before this round's writes), [1] anything else.
__global__ void countWrong(const uint32_t* destination, unsigned rounds, unsigned ctas,
                           unsigned long long* counters) {
  const size_t words = static_cast<size_t>(rounds) * ctas * (kTileBytes / 4);
  unsigned stale = 0, other = 0;
  for (size_t w = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; w < words;
       w += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t tileIndex = w / (kTileBytes / 4);
    const unsigned round = static_cast<unsigned>(tileIndex / ctas), cta = static_cast<unsigned>(tileIndex % ctas);
    const uint32_t v = destination[w];
    if (v == tileTag(cta, round)) continue;
    if (round > 0 && v == tileTag(cta, round - 1)) ++stale;
    else ++other;
  }
  if (stale) atomicAdd(&counters[0], static_cast<unsigned long long>(stale));
  if (other) atomicAdd(&counters[1], static_cast<unsigned long long>(other));
}

using Kernel = void (*)(Params);
struct VariantKernels {
  const char* name;
  Kernel bulk, tensor;
};
const VariantKernels kVariants[] = {
    {"unfixed", proxyRawUnfixed<Copy::Bulk>, proxyRawUnfixed<Copy::Tensor>},
    {"fixed", proxyRawFixed<Copy::Bulk>, proxyRawFixed<Copy::Tensor>},
    {"issuer-fence", proxyRawIssuerFence<Copy::Bulk>, proxyRawIssuerFence<Copy::Tensor>},
};

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant, Copy copy) {
  const char* experiment = copy == Copy::Bulk ? "proxy-raw" : "proxy-raw-tma";
  const unsigned ctas = ctx.device->multiProcessorCount * static_cast<unsigned>(ctx.param("proxy-raw.ctas_per_sm", 2));
  Params p{};
  p.rounds = static_cast<unsigned>(ctx.param("proxy-raw.rounds", 1000));
  p.bankConflicts = static_cast<unsigned>(ctx.param("proxy-raw.bank_conflicts", 1));
  const size_t words = static_cast<size_t>(p.rounds) * ctas * (kTileBytes / 4);
  unsigned long long* counters = nullptr;
  check(cudaMalloc(&p.destination, words * 4), "cudaMalloc");
  check(cudaMalloc(&counters, 2 * sizeof(unsigned long long)), "cudaMalloc");
  if (copy == Copy::Tensor)
    p.tensorMap = encodeTensorMap2d(p.destination, words / kTensorCols, kTensorCols, kTileRows, kTensorCols);
  Kernel kernel = nullptr;
  for (const auto& v : kVariants)
    if (variant == v.name) kernel = copy == Copy::Bulk ? v.bulk : v.tensor;

  Result result{experiment, variant};
  unsigned long long totals[2] = {0, 0};
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(p.destination, 0xff, words * 4), "cudaMemset");
    check(cudaMemset(counters, 0, 2 * sizeof(unsigned long long)), "cudaMemset");
    result.seconds += timedLaunch(ctx, experiment, [&] { kernel<<<ctas, kThreads>>>(p); });
    countWrong<<<1024, 256>>>(p.destination, p.rounds, ctas, counters);
    check(cudaDeviceSynchronize(), "countWrong");
    unsigned long long host[2];
    check(cudaMemcpy(host, counters, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    totals[0] += host[0];
    totals[1] += host[1];
    result.trials += words;
    ++result.launches;
  }
  check(cudaFree(p.destination), "cudaFree");
  check(cudaFree(counters), "cudaFree");
  result.violations = totals[0] + totals[1];
  result.set("copy", copy == Copy::Bulk ? "cp.async.bulk (shared->global)" : "cp.async.bulk.tensor.2d (shared->global)");
  result.set("previous_round", static_cast<double>(totals[0]));
  result.set("other_wrong", static_cast<double>(totals[1]));
  result.set("ctas", ctas);
  result.set("threads", kThreads);
  result.set("rounds_per_launch", p.rounds);
  result.set("tile_bytes", kTileBytes);
  result.set("bank_conflicts", p.bankConflicts);
  if (result.launches) result.set("ns_per_round", result.seconds / result.launches / p.rounds * 1e9);
  return {result};
}

std::vector<std::string> variantNames() { return {"unfixed", "fixed", "issuer-fence"}; }

}  // namespace lab::proxy_raw

lab::ExperimentInfo lab::proxyRawExperiment() {
  return {"proxy-raw", "generic st.shared, bar.sync, then a bulk store of the tile (cp.async.bulk)",
          proxy_raw::variantNames(), [](const RunContext& ctx, const std::string& v) {
            return proxy_raw::runVariant(ctx, v, proxy_raw::Copy::Bulk);
          }};
}

lab::ExperimentInfo lab::proxyRawTmaExperiment() {
  return {"proxy-raw-tma", "generic st.shared, bar.sync, then a TMA tensor store of the tile",
          proxy_raw::variantNames(), [](const RunContext& ctx, const std::string& v) {
            return proxy_raw::runVariant(ctx, v, proxy_raw::Copy::Tensor);
          }};
}
