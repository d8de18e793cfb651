// Grid-barrier latency: fenceline::GridBarrier::sync() against cooperative_groups'
// this_grid().sync(), in the same run, at every multiple of the SM count up to the maximum
// number of co-resident blocks. Each launch runs `iterations` barriers back to back; the
// latency is the kernel time over the iterations, the median of `repeats` launches, the
// implementations interleaved launch by launch so that clock drift hits all of them alike.
// "fenceline" is the library's default (GridBarrierDesign::chosen: the design that
// GridBarrier::for_grid sets for the grid, as launch_with_grid_barrier passes it); the two designs
// it picks between are also timed on their own at every size ("one-word", "flag-line"), so
// that the crossover (the first size where flag-line is faster) is read off the same run,
// with the library's previous barrier (one 32-bit word: "previous-library") and candidates
// for small grids ("early-poll", "global-*", below). Every implementation has its own words,
// from GridBarrier::create (which picks the fastest of its candidate places). --placements N
// then times the designs again with all of them on the same words at N places of one
// allocation: the like-for-like comparison, and how much the counter's place in the L2
// moves a sync. (An earlier run also timed one-word polling with ld.acquire.gpu and no
// separate fence: slower at every size, docs/primitives.md.)
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

// Candidates for a faster one_word (2026-12-01, issue 17): the counter's atom and polls
// with the .global state space (no generic-address fallback path in the SASS), and polls
// kept `K` in flight, issued `Gap` SM cycles apart, so that the completion is seen about
// RTT/K after it lands instead of up to a whole round trip later.
__device__ __forceinline__ uint64_t global_arrive(uint64_t* word, uint64_t add) {
  uint64_t old;
  asm volatile("atom.release.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(word), "l"(add) : "memory");
  return old;
}
__device__ __forceinline__ uint64_t global_poll(const uint64_t* word) {
  uint64_t v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(word) : "memory");
  return v;
}
__device__ __forceinline__ void spin_cycles(uint32_t cycles) {
  const uint32_t start = static_cast<uint32_t>(clock());
  while (static_cast<uint32_t>(clock()) - start < cycles) {
  }
}
// Gap > 0: after a poll that did not see the end, wait Gap SM cycles before the next, so
// that fewer polls queue with the arrivals' atomics at the counter's L2 slice.
template <int K, int Gap>
__global__ void candidate_kernel(GridBarrier barrier, int iterations) {
  const uint64_t add = blockIdx.x == 0 ? GridBarrier::kEpisode - (gridDim.x - 1u) : 1u;
  for (int i = 0; i < iterations; ++i) {
    __syncthreads();
    if (threadIdx.x == 0) {
      GridBarrier::Token token;
      token.arrived_at = global_arrive(barrier.word, add);
      const uint64_t target = GridBarrier::completed_at(token);
      if (token.arrived_at + add != target) {
        if constexpr (K == 1) {
          while (static_cast<int64_t>(global_poll(barrier.word) - target) < 0)
            if constexpr (Gap > 0) spin_cycles(Gap);
        } else {
          uint64_t v[K];
#pragma unroll
          for (int k = 0; k < K; ++k) {
            v[k] = global_poll(barrier.word);
            if (k + 1 < K) spin_cycles(Gap);
          }
          for (bool done = false; !done;) {
#pragma unroll
            for (int k = 0; k < K; ++k) {
              if (static_cast<int64_t>(v[k] - target) >= 0) {
                done = true;
                break;
              }
              v[k] = global_poll(barrier.word);
            }
          }
        }
      }
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
  // As launch_with_grid_barrier() passes it: set up for this grid (GridBarrier::for_grid).
  GridBarrier set = barrier.for_grid(blocks);
  void* args[] = {&set, &iterations};
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
  int iterations = 5000, repeats = 7, threads = 128, placements = 0;
  std::string json_path, driver = "unknown", command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--iterations")) iterations = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) repeats = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) threads = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--placements")) placements = std::stoi(argv[i + 1]);
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
                             {"early-poll", early_poll_kernel, {}, {}, {}},
                             {"global-1", candidate_kernel<1, 0>, {}, {}, {}},
                             {"global-gap100", candidate_kernel<1, 100>, {}, {}, {}},
                             {"global-gap250", candidate_kernel<1, 250>, {}, {}, {}},
                             {"global-gap500", candidate_kernel<1, 500>, {}, {}, {}},
                             {"global-2x300", candidate_kernel<2, 300>, {}, {}, {}}};
  int max_blocks = 1 << 30;
  for (Impl& impl : impls) {
    double places[GridBarrier::kPlacements];
    BENCH_CHECK(GridBarrier::create(&impl.barrier, places));
    std::printf("%s: create() calibration, ns per episode at its %u places:", impl.name, GridBarrier::kPlacements);
    for (double ns : places) std::printf(" %.1f", ns);
    std::printf(" -> place %d\n", static_cast<int>((impl.barrier.word - impl.barrier.allocation) / GridBarrier::kPlacementStride));
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
  // Placement sweep (--placements N, default 0: off): the same designs with their words at N
  // different 128-byte lines of one allocation (line i at i * 37 lines), all three designs
  // on the same words at each placement (launches of either design may follow each other
  // on one barrier: grid_barrier.cuh), against cooperative_groups in the same loop: whether
  // the difference between two designs is theirs or their words' place in the L2.
  if (placements > 0) {
    constexpr size_t kStrideWords = 37 * 16;  // 37 lines of 128 bytes
    uint64_t* pool = nullptr;
    const size_t pool_words = placements * kStrideWords + GridBarrier::kWords;
    BENCH_CHECK(cudaMalloc(&pool, pool_words * sizeof(uint64_t)));
    BENCH_CHECK(cudaMemset(pool, 0, pool_words * sizeof(uint64_t)));
    const int sweep_iterations = iterations / 2, sweep_repeats = 5;
    struct Named {
      const char* name;
      Kernel kernel;
    } designs[] = {{"fenceline", fenceline_kernel},
                   {"one-word", design_kernel<GridBarrierDesign::one_word>},
                   {"flag-line", design_kernel<GridBarrierDesign::flag_line>},
                   {"global-1", candidate_kernel<1, 0>},
                   {"global-gap100", candidate_kernel<1, 100>},
                   {"global-gap250", candidate_kernel<1, 250>},
                   {"global-gap500", candidate_kernel<1, 500>},
                   {"cooperative_groups", cooperative_groups_kernel}};
    std::printf("placement sweep: ns per sync (median of %d launches of %d syncs), words at line i*37\n",
                sweep_repeats, sweep_iterations);
    constexpr int kDesigns = sizeof designs / sizeof designs[0];
    std::printf("%-10s %8s", "placement", "blocks");
    for (const Named& d : designs) std::printf(" %13.13s", d.name);
    std::printf("   (the last column is cooperative_groups, in ns; the others also / cg)\n");
    std::vector<int> sizes = {prop.multiProcessorCount, 2 * prop.multiProcessorCount, max_blocks};
    for (int blocks : sizes)
      for (int slot = 0; slot < placements; ++slot) {
        GridBarrier at;
        at.word = pool + slot * kStrideWords;
        double ns[kDesigns];
        for (int d = 0; d < kDesigns; ++d) {
          std::vector<float> ms;
          time_launch(designs[d].kernel, blocks, threads, at, sweep_iterations);
          for (int r = 0; r < sweep_repeats; ++r)
            ms.push_back(time_launch(designs[d].kernel, blocks, threads, at, sweep_iterations));
          ns[d] = median(ms) * 1e6 / sweep_iterations;
        }
        std::printf("%-10d %8d", slot, blocks);
        for (int d = 0; d < kDesigns; ++d) std::printf(" %6.1f %.3fx", ns[d], ns[d] / ns[kDesigns - 1]);
        std::printf("\n");
      }
    BENCH_CHECK(cudaFree(pool));
  }
  for (Impl& impl : impls) BENCH_CHECK(impl.barrier.destroy());
  return 0;
}
