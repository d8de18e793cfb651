// Grid-barrier latency: fenceline::GridBarrier::sync() against cooperative_groups'
// this_grid().sync(), in the same run, at every multiple of the SM count up to the maximum
// number of co-resident blocks. Each launch runs `iterations` barriers back to back; the
// latency is the kernel time over the iterations, the median of `repeats` launches, the
// implementations interleaved launch by launch so that clock drift hits all of them alike.
// "fenceline" is the library's default (GridBarrierDesign::by_grid_size); the two designs
// it picks between are also timed on their own at every size ("one-word", "flag-line"), so
// that the crossover (the first size where flag-line is faster) is read off the same run,
// with the library's previous barrier (one 32-bit word: "previous-library") and a
// candidate for small grids ("early-poll", below). Every
// implementation has its own words. (An earlier run also timed one-word polling with
// ld.acquire.gpu and no separate fence: slower at every size, docs/primitives.md.)
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../../include/fenceline/grid_barrier.cuh"

namespace cg = cooperative_groups;
using fenceline::GridBarrier;
using fenceline::Sem;

#define BENCH_CHECK(call)                                                                              \
  do {                                                                                                 \
    cudaError_t bench_error = (call);                                                                  \
    if (bench_error != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(bench_error)); \
      std::exit(2);                                                                                    \
    }                                                                                                  \
  } while (0)

using fenceline::GridBarrierDesign;
using fenceline::Scope;

__global__ void fenceline_kernel(GridBarrier barrier, int iterations) {
  for (int i = 0; i < iterations; ++i) barrier.sync();
}

template <GridBarrierDesign D>
__global__ void design_kernel(GridBarrier barrier, int iterations) {
  for (int i = 0; i < iterations; ++i) barrier.sync<Sem::acquire, D>();
}

// The library's previous barrier: one 32-bit word (phase in bit 31), no flag line.
__global__ void previous_library_kernel(GridBarrier barrier, int iterations) {
  uint32_t* word = reinterpret_cast<uint32_t*>(barrier.word);
  const uint32_t add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1u) : 1u;
  for (int i = 0; i < iterations; ++i) {
    __syncthreads();
    if (threadIdx.x == 0) {
      const uint32_t old = fenceline::atomic_fetch_add<Sem::release, Scope::gpu>(word, add);
      if ((((old + add) ^ old) & 0x80000000u) == 0)
        while (((fenceline::atomic_load<Sem::relaxed, Scope::gpu>(word) ^ old) & 0x80000000u) == 0) {
        }
      fenceline::fence<Sem::acquire, Scope::gpu>();
    }
    __syncthreads();
  }
}

// one_word, but every block (the last too) polls, and the first poll is issued right
// behind the atom instead of after its result (in the 2026-11 run: faster at 132 blocks,
// slower at 264 and above); a candidate for small grids.
__global__ void early_poll_kernel(GridBarrier barrier, int iterations) {
  const uint64_t add = blockIdx.x == 0 ? GridBarrier::kEpisode - (gridDim.x - 1u) : 1u;
  for (int i = 0; i < iterations; ++i) {
    __syncthreads();
    if (threadIdx.x == 0) {
      GridBarrier::Token token;
      token.arrived_at = fenceline::atomic_fetch_add<Sem::release, Scope::gpu>(barrier.word, add);
      GridBarrier::poll_until_complete(barrier.word, token);
      fenceline::fence<Sem::acquire, Scope::gpu>();
    }
    __syncthreads();
  }
}

__global__ void cooperative_groups_kernel(GridBarrier /*unused*/, int iterations) {
  cg::grid_group grid = cg::this_grid();
  for (int i = 0; i < iterations; ++i) grid.sync();
}

using Kernel = void (*)(GridBarrier, int);

struct Impl {
  const char* name;
  Kernel kernel;
  GridBarrier barrier;
  std::vector<float> ms;
  std::vector<double> ns_by_size;
};

static float time_launch(Kernel kernel, int blocks, int threads, GridBarrier barrier, int iterations) {
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  void* args[] = {&barrier, &iterations};
  BENCH_CHECK(cudaEventRecord(start));
  // The same cooperative launch for every implementation.
  BENCH_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), dim3(blocks), dim3(threads), args, 0, 0));
  BENCH_CHECK(cudaEventRecord(stop));
  BENCH_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
  BENCH_CHECK(cudaEventDestroy(start));
  BENCH_CHECK(cudaEventDestroy(stop));
  return ms;
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  int iterations = 5000, repeats = 7, threads = 128;
  std::string json_path, driver = "unknown", command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--iterations")) iterations = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) threads = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--json")) json_path = argv[i + 1];
    if (!std::strcmp(argv[i], "--driver")) driver = argv[i + 1];
  }
  cudaDeviceProp prop;
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  int runtime = 0;
  BENCH_CHECK(cudaRuntimeGetVersion(&runtime));
  std::vector<Impl> impls = {{"fenceline", fenceline_kernel, {}, {}, {}},
                             {"cooperative_groups", cooperative_groups_kernel, {}, {}, {}},
                             {"one-word", design_kernel<GridBarrierDesign::one_word>, {}, {}, {}},
                             {"flag-line", design_kernel<GridBarrierDesign::flag_line>, {}, {}, {}},
                             {"previous-library", previous_library_kernel, {}, {}, {}},
                             {"early-poll", early_poll_kernel, {}, {}, {}}};
  int max_blocks = 1 << 30;
  for (Impl& impl : impls) {
    BENCH_CHECK(GridBarrier::create(&impl.barrier));
    int resident = 0;
    fenceline::LaunchStatus status = fenceline::max_coresident_blocks(impl.kernel, threads, 0, &resident);
    if (!status) return std::fprintf(stderr, "%s\n", status.message.c_str()), 2;
    max_blocks = std::min(max_blocks, resident);
  }
  std::vector<int> block_counts;
  for (int b = prop.multiProcessorCount; b <= max_blocks; b += prop.multiProcessorCount) block_counts.push_back(b);
  if (block_counts.empty() || block_counts.back() != max_blocks) block_counts.push_back(max_blocks);

  std::string results;
  std::string variants;
  int crossover = 0;
  std::printf("%-26s %8s %10s %10s\n", "impl", "blocks", "ns", "vs cg");
  for (int blocks : block_counts) {
    for (Impl& impl : impls) {
      impl.ms.clear();
      time_launch(impl.kernel, blocks, threads, impl.barrier, iterations);  // warm-up
    }
    for (int r = 0; r < repeats; ++r)
      for (Impl& impl : impls) impl.ms.push_back(time_launch(impl.kernel, blocks, threads, impl.barrier, iterations));
    const double cg_ns = median(impls[1].ms) * 1e6 / iterations;
    for (Impl& impl : impls) {
      const double ns = median(impl.ms) * 1e6 / iterations;
      impl.ns_by_size.push_back(ns);
      float lo = *std::min_element(impl.ms.begin(), impl.ms.end()) * 1e6f / iterations;
      float hi = *std::max_element(impl.ms.begin(), impl.ms.end()) * 1e6f / iterations;
      std::printf("%-26s %8d %10.1f %9.3fx   (min %.1f max %.1f)\n", impl.name, blocks, ns, ns / cg_ns, lo, hi);
      char row[320];
      std::snprintf(row, sizeof row,
                    "    {\"impl\": \"%s\", \"blocks\": %d, \"ns\": %.1f, \"ns_min\": %.1f, \"ns_max\": %.1f, "
                    "\"vs_cg\": %.3f}",
                    impl.name, blocks, ns, lo, hi, ns / cg_ns);
      const bool main_impl = !std::strcmp(impl.name, "fenceline") || !std::strcmp(impl.name, "cooperative_groups");
      std::string& into = main_impl ? results : variants;
      into += (into.empty() ? "" : ",\n") + std::string(row);
    }
    if (!crossover && impls[3].ns_by_size.back() < impls[2].ns_by_size.back()) crossover = blocks;
  }
  std::printf("crossover: flag-line first faster than one-word at %d blocks (library switches at %u)\n", crossover,
              fenceline::kFlagLineFromBlocks);
  if (!json_path.empty()) {
    FILE* out = std::fopen(json_path.c_str(), "w");
    if (!out) return std::fprintf(stderr, "cannot write %s\n", json_path.c_str()), 2;
    std::fprintf(out,
                 "{\n  \"device\": \"%s\",\n  \"sms\": %d,\n  \"driver\": \"%s\",\n  \"cuda_runtime\": %d,\n"
                 "  \"command\": \"%s\",\n  \"threads_per_block\": %d,\n  \"iterations\": %d,\n  \"repeats\": %d,\n"
                 "  \"max_coresident_blocks\": %d,\n  \"crossover_blocks\": %d,\n  \"flag_line_from_blocks\": %u,\n"
                 "  \"results\": [\n%s\n  ],\n  \"variants\": [\n%s\n  ]\n}\n",
                 prop.name, prop.multiProcessorCount, driver.c_str(), runtime, command.c_str(), threads, iterations,
                 repeats, max_blocks, crossover, fenceline::kFlagLineFromBlocks, results.c_str(), variants.c_str());
    std::fclose(out);
  }
  for (Impl& impl : impls) BENCH_CHECK(impl.barrier.destroy());
  return 0;
}
