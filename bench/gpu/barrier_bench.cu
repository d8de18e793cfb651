// Grid-barrier latency: fenceline::GridBarrier::sync() against cooperative_groups'
// this_grid().sync(), in the same run, at 132 and 264 blocks and at the maximum number of
// co-resident blocks. Each launch runs `iterations` barriers back to back; the latency is
// the kernel time over the iterations, the median of `repeats` launches, the
// implementations interleaved launch by launch so that clock drift hits all of them alike.
// Also timed ("variants"): GridBarrier with fence.acq_rel.gpu instead of fence.acquire.gpu,
// and two other designs (below) that the library does not use.
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

__global__ void fenceline_kernel(GridBarrier barrier, int iterations) {
  for (int i = 0; i < iterations; ++i) barrier.sync();
}

__global__ void fenceline_acq_rel_kernel(GridBarrier barrier, int iterations) {
  for (int i = 0; i < iterations; ++i) barrier.sync<Sem::acq_rel>();
}

// Variants not offered by the library, each a candidate design measured against it.
// atom-early-poll: as GridBarrier, but every block (the last too) polls, and the first poll
// is issued right behind the atom instead of after its result: more poll traffic on the
// word while the arrivals are still coming in.
__global__ void atom_early_poll_kernel(GridBarrier barrier, int iterations) {
  using fenceline::Scope;
  const uint32_t add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1u) : 1u;
  for (int i = 0; i < iterations; ++i) {
    __syncthreads();
    if (threadIdx.x == 0) {
      const uint32_t old = fenceline::atomic_fetch_add<Sem::release, Scope::gpu>(barrier.word, add);
      while (((fenceline::atomic_load<Sem::relaxed, Scope::gpu>(barrier.word) ^ old) & 0x80000000u) == 0) {
      }
      fenceline::fence<Sem::acquire, Scope::gpu>();
    }
    __syncthreads();
  }
}

// flag-word: arrivals go to a counter, polls to a separate flag line that only the last
// arriver writes (st.release.gpu of the new phase): polls do not contend with the atomics,
// at the cost of one more store on the critical path. Uses words [64] and [96] of the
// bench's barrier allocation, so its phase never mixes with the other kernels'.
__global__ void flag_word_kernel(GridBarrier barrier, int iterations) {
  using fenceline::Scope;
  uint32_t* counter = barrier.word + 64;
  uint32_t* flag = barrier.word + 96;
  const uint32_t add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1u) : 1u;
  for (int i = 0; i < iterations; ++i) {
    __syncthreads();
    if (threadIdx.x == 0) {
      const uint32_t old = fenceline::atomic_fetch_add<Sem::release, Scope::gpu>(counter, add);
      if ((((old + add) ^ old) & 0x80000000u) != 0) {
        fenceline::fence<Sem::acquire, Scope::gpu>();
        fenceline::atomic_store<Sem::release, Scope::gpu>(flag, (old + add) & 0x80000000u);
      } else {
        while (((fenceline::atomic_load<Sem::relaxed, Scope::gpu>(flag) ^ old) & 0x80000000u) == 0) {
        }
        fenceline::fence<Sem::acquire, Scope::gpu>();
      }
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
  std::vector<float> ms;
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
  int iterations = 20000, repeats = 7, threads = 128;
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
  // GridBarrier::create allocates one word; the flag-word variant needs two more lines.
  GridBarrier barrier;
  BENCH_CHECK(cudaMalloc(&barrier.word, 128 * sizeof(uint32_t)));
  BENCH_CHECK(cudaMemset(barrier.word, 0, 128 * sizeof(uint32_t)));

  std::vector<Impl> impls = {{"fenceline", fenceline_kernel, {}},
                             {"cooperative_groups", cooperative_groups_kernel, {}},
                             {"fenceline-acq_rel-fence", fenceline_acq_rel_kernel, {}},
                             {"atom-early-poll", atom_early_poll_kernel, {}},
                             {"flag-word", flag_word_kernel, {}}};
  int max_blocks = 1 << 30;
  for (const Impl& impl : impls) {
    int resident = 0;
    fenceline::LaunchStatus status = fenceline::max_coresident_blocks(impl.kernel, threads, 0, &resident);
    if (!status) return std::fprintf(stderr, "%s\n", status.message.c_str()), 2;
    max_blocks = std::min(max_blocks, resident);
  }
  std::vector<int> block_counts = {prop.multiProcessorCount, 2 * prop.multiProcessorCount, max_blocks};
  if (block_counts[0] != 132) block_counts.insert(block_counts.begin(), 132);  // the target's count

  std::string results;
  std::string variants;
  std::printf("%-26s %8s %10s %10s\n", "impl", "blocks", "ns", "vs cg");
  for (int blocks : block_counts) {
    if (blocks > max_blocks) continue;
    for (Impl& impl : impls) {
      impl.ms.clear();
      time_launch(impl.kernel, blocks, threads, barrier, iterations);  // warm-up
    }
    for (int r = 0; r < repeats; ++r)
      for (Impl& impl : impls) impl.ms.push_back(time_launch(impl.kernel, blocks, threads, barrier, iterations));
    const double cg_ns = median(impls[1].ms) * 1e6 / iterations;
    for (const Impl& impl : impls) {
      const double ns = median(impl.ms) * 1e6 / iterations;
      float lo = *std::min_element(impl.ms.begin(), impl.ms.end()) * 1e6f / iterations;
      float hi = *std::max_element(impl.ms.begin(), impl.ms.end()) * 1e6f / iterations;
      std::printf("%-26s %8d %10.1f %9.3fx   (min %.1f max %.1f)\n", impl.name, blocks, ns, ns / cg_ns, lo, hi);
      char row[256];
      std::snprintf(row, sizeof row,
                    "    {\"impl\": \"%s\", \"blocks\": %d, \"ns\": %.1f, \"ns_min\": %.1f, \"ns_max\": %.1f}",
                    impl.name, blocks, ns, lo, hi);
      const bool main_impl = !std::strcmp(impl.name, "fenceline") || !std::strcmp(impl.name, "cooperative_groups");
      std::string& into = main_impl ? results : variants;
      into += (into.empty() ? "" : ",\n") + std::string(row);
    }
  }
  if (!json_path.empty()) {
    FILE* out = std::fopen(json_path.c_str(), "w");
    if (!out) return std::fprintf(stderr, "cannot write %s\n", json_path.c_str()), 2;
    std::fprintf(out,
                 "{\n  \"device\": \"%s\",\n  \"sms\": %d,\n  \"driver\": \"%s\",\n  \"cuda_runtime\": %d,\n"
                 "  \"command\": \"%s\",\n  \"threads_per_block\": %d,\n  \"iterations\": %d,\n  \"repeats\": %d,\n"
                 "  \"max_coresident_blocks\": %d,\n  \"results\": [\n%s\n  ],\n  \"variants\": [\n%s\n  ]\n}\n",
                 prop.name, prop.multiProcessorCount, driver.c_str(), runtime, command.c_str(), threads, iterations,
                 repeats, max_blocks, results.c_str(), variants.c_str());
    std::fclose(out);
  }
  BENCH_CHECK(barrier.destroy());
  return 0;
}
