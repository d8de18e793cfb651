// Hand-off cost of the TMA stage ring: the time per stage per block with the refill fence
// left out (the bug: a baseline only), with every consumer thread fencing
// (RefillFence::consumers) and with the producer fencing once (RefillFence::producer).
// Consumers do little work (one conflict-free 16-byte read per thread per stage), so the
// hand-off dominates. Median of `repeats` launches, variants interleaved.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../../include/fenceline/tma_pipeline.cuh"

using namespace fenceline;

#define BENCH_CHECK(call)                                                                              \
  do {                                                                                                 \
    cudaError_t bench_error = (call);                                                                  \
    if (bench_error != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(bench_error)); \
      std::exit(2);                                                                                    \
    }                                                                                                  \
  } while (0)

constexpr int kStages = 4;
constexpr int kStageBytes = 2048;  // 128 consumer threads x 16 bytes
constexpr int kConsumerWarps = 4;
constexpr int kThreads = 32 * (kConsumerWarps + 1);
constexpr uint32_t kSourceTiles = 1024;  // 2 MB: L2-resident

template <int Stages>
struct UnfencedRing : TmaPipeline<Stages, RefillFence::producer> {
  __device__ void producer_acquire(StageCursor<Stages> cursor) const {
    mbarrier_wait_parity(&this->barriers->empty[cursor.stage], cursor.phase ^ 1u);
  }
};

template <class Ring>
__global__ void __launch_bounds__(kThreads) ring_kernel(const uint4* source, uint32_t tiles_per_block, uint4* sink) {
  __shared__ StageBarriers<kStages> barriers;
  __shared__ alignas(128) uint4 stages[kStages][kStageBytes / 16];
  Ring ring;
  if constexpr (std::is_same_v<Ring, UnfencedRing<kStages>>) {
    ring = Ring{{TmaPipeline<kStages, RefillFence::producer>::init(barriers, kConsumerWarps).barriers}};
  } else {
    ring = Ring::init(barriers, kConsumerWarps);
  }
  const uint32_t warp = threadIdx.x / 32;
  StageCursor<kStages> cursor;
  if (warp == kConsumerWarps) {
    if (threadIdx.x % 32 != 0) return;
    for (uint32_t k = 0; k < tiles_per_block; ++k) {
      const uint32_t tile = (blockIdx.x * tiles_per_block + k) % kSourceTiles;
      ring.producer_acquire(cursor);
      ring.producer_commit_bulk(cursor, stages[cursor.stage], source + tile * (kStageBytes / 16), kStageBytes);
      cursor.advance();
    }
    return;
  }
  uint4 sum = {0, 0, 0, 0};
  for (uint32_t k = 0; k < tiles_per_block; ++k) {
    ring.consumer_wait(cursor);
    const uint4 v = stages[cursor.stage][threadIdx.x];
    ring.consumer_release(cursor);
    sum.x ^= v.x; sum.y ^= v.y; sum.z ^= v.z; sum.w ^= v.w;
    cursor.advance();
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

using Kernel = void (*)(const uint4*, uint32_t, uint4*);

int main(int argc, char** argv) {
  int repeats = 7;
  uint32_t tiles_per_block = 100000;
  std::string json_path, driver = "unknown", command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--tiles")) tiles_per_block = std::stoul(argv[i + 1]);
    if (!std::strcmp(argv[i], "--json")) json_path = argv[i + 1];
    if (!std::strcmp(argv[i], "--driver")) driver = argv[i + 1];
  }
  cudaDeviceProp prop;
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  uint4 *source = nullptr, *sink = nullptr;
  BENCH_CHECK(cudaMalloc(&source, size_t(kStageBytes) * kSourceTiles));
  BENCH_CHECK(cudaMemset(source, 0x5a, size_t(kStageBytes) * kSourceTiles));
  const int max_blocks = prop.multiProcessorCount * 8;
  BENCH_CHECK(cudaMalloc(&sink, sizeof(uint4) * max_blocks * kThreads));

  struct Variant {
    const char* name;
    Kernel kernel;
    std::vector<float> ms;
  };
  std::vector<Variant> variants = {{"unfenced (bug, baseline)", ring_kernel<UnfencedRing<kStages>>, {}},
                                   {"consumers", ring_kernel<TmaPipeline<kStages, RefillFence::consumers>>, {}},
                                   {"producer", ring_kernel<TmaPipeline<kStages, RefillFence::producer>>, {}}};
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  std::string rows;
  std::printf("%-26s %7s %14s %12s\n", "refill fence", "blocks", "ns/stage/block", "vs unfenced");
  for (int blocks : {prop.multiProcessorCount, max_blocks}) {
    for (Variant& v : variants) {
      v.ms.clear();
      v.kernel<<<blocks, kThreads>>>(source, tiles_per_block / 10, sink);  // warm-up
    }
    BENCH_CHECK(cudaDeviceSynchronize());
    for (int r = 0; r < repeats; ++r)
      for (Variant& v : variants) {
        BENCH_CHECK(cudaEventRecord(start));
        v.kernel<<<blocks, kThreads>>>(source, tiles_per_block, sink);
        BENCH_CHECK(cudaEventRecord(stop));
        BENCH_CHECK(cudaEventSynchronize(stop));
        BENCH_CHECK(cudaGetLastError());
        float ms = 0;
        BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
        v.ms.push_back(ms);
      }
    double base = 0;
    for (Variant& v : variants) {
      std::sort(v.ms.begin(), v.ms.end());
      const double ns = v.ms[v.ms.size() / 2] * 1e6 / tiles_per_block;
      if (base == 0) base = ns;
      std::printf("%-26s %7d %14.2f %11.3fx\n", v.name, blocks, ns, ns / base);
      char row[256];
      std::snprintf(row, sizeof row, "    {\"fence\": \"%s\", \"blocks\": %d, \"ns_per_stage\": %.2f, \"vs_unfenced\": %.3f}",
                    v.name, blocks, ns, ns / base);
      rows += (rows.empty() ? "" : ",\n") + std::string(row);
    }
  }
  if (!json_path.empty()) {
    FILE* out = std::fopen(json_path.c_str(), "w");
    if (!out) return std::fprintf(stderr, "cannot write %s\n", json_path.c_str()), 2;
    std::fprintf(out,
                 "{\n  \"device\": \"%s\",\n  \"driver\": \"%s\",\n  \"command\": \"%s\",\n  \"stages\": %d,\n"
                 "  \"stage_bytes\": %d,\n  \"consumer_warps\": %d,\n  \"tiles_per_block\": %u,\n  \"repeats\": %d,\n"
                 "  \"results\": [\n%s\n  ]\n}\n",
                 prop.name, driver.c_str(), command.c_str(), kStages, kStageBytes, kConsumerWarps, tiles_per_block,
                 repeats, rows.c_str());
    std::fclose(out);
  }
  return 0;
}
