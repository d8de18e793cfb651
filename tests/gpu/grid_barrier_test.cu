// GridBarrier on the GPU: 10^6 consecutive episodes at full occupancy (every block that
// can be co-resident), each checked by data, for each waiting design (one_word, flag_line,
// and the default, GridBarrierDesign::chosen, at one block per SM and at full occupancy, where the
// launch helper sets one_word and flag_line). In episode e every thread writes e into its
// slot of a double-buffered array, one block chosen per episode first spins for a while,
// and after the barrier every thread reads the slot of the same thread in another block
// (a different one each episode). A block that passed early reads a stale value; a missing
// acquire can too (a line its L1 kept from two episodes before). Also: split arrive/wait,
// reuse across launches (also alternating designs on one barrier), and the launch helper's
// refusal of a grid that cannot be resident.
#include <cstdint>
#include <cstring>
#include <string>

#include "../../include/fenceline/grid_barrier.cuh"
#include "gpu_check.h"

using fenceline::GridBarrier;
using fenceline::GridBarrierDesign;
using fenceline::Sem;

struct Errors {
  unsigned long long count;
  uint32_t first_episode;
  uint32_t first_block;
  uint32_t first_seen;
};

__device__ __forceinline__ uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  return x;
}

// Spins for about `ns` nanoseconds of %globaltimer; the compiler cannot fold it away.
__device__ void delay_ns(uint64_t ns) {
  const uint64_t start = fenceline::global_timer_ns();
  while (fenceline::global_timer_ns() - start < ns) {
  }
}

template <bool Split, GridBarrierDesign D>
__global__ void episodes_kernel(GridBarrier barrier, uint32_t* slots, uint32_t first, uint32_t count,
                                Errors* errors) {
  const uint32_t blocks = gridDim.x, threads = blockDim.x;
  for (uint32_t e = first; e < first + count; ++e) {
    uint32_t* buffer = slots + (e & 1u) * blocks * threads;
    // One block in 16 episodes arrives late, so early passers have something to miss.
    if ((mix(e) & 15u) == 0 && blockIdx.x == mix(e ^ 0x5bd1e995u) % blocks && threadIdx.x == 0) delay_ns(2000);
    __syncthreads();
    buffer[blockIdx.x * threads + threadIdx.x] = e;
    if constexpr (Split) {
      GridBarrier::Token token = barrier.arrive<D>();
      barrier.wait<Sem::acquire, D>(token);
    } else {
      barrier.sync<Sem::acquire, D>();
    }
    const uint32_t other = (blockIdx.x + 1u + mix(e) % (blocks - 1u > 0 ? blocks - 1u : 1u)) % blocks;
    const uint32_t seen = buffer[other * threads + threadIdx.x];
    if (seen != e) {
      if (atomicAdd(&errors->count, 1ull) == 0) {
        errors->first_episode = e;
        errors->first_block = blockIdx.x;
        errors->first_seen = seen;
      }
    }
  }
}

int main(int argc, char** argv) {
  uint32_t episodes = 1000000;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--episodes")) episodes = static_cast<uint32_t>(std::stoul(argv[i + 1]));
  TestReport report;
  const int threads = 256;
  int blocks = 0;
  fenceline::LaunchStatus status =
      fenceline::max_coresident_blocks(episodes_kernel<false, GridBarrierDesign::one_word>, threads, 0, &blocks);
  if (!status) {
    std::fprintf(stderr, "%s\n", status.message.c_str());
    return 2;
  }
  GridBarrier barrier;
  GPU_CHECK(GridBarrier::create(&barrier));
  uint32_t* slots = nullptr;
  Errors* errors = nullptr;
  GPU_CHECK(cudaMalloc(&slots, sizeof(uint32_t) * 2 * blocks * threads));
  GPU_CHECK(cudaMemset(slots, 0xff, sizeof(uint32_t) * 2 * blocks * threads));
  GPU_CHECK(cudaMalloc(&errors, sizeof(Errors)));

  int sms = 0;
  GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto run = [&](auto kernel, const char* name, int grid, uint32_t first, uint32_t count) {
    GPU_CHECK(cudaMemset(errors, 0, sizeof(Errors)));
    cudaEvent_t start, stop;
    GPU_CHECK(cudaEventCreate(&start));
    GPU_CHECK(cudaEventCreate(&stop));
    GPU_CHECK(cudaEventRecord(start));
    fenceline::LaunchStatus launched = fenceline::launch_with_grid_barrier(
        kernel, dim3(grid), dim3(threads), 0, 0, barrier, slots, first, count, errors);
    if (!launched) {
      report.result(false, name, launched.message.c_str());
      return;
    }
    GPU_CHECK(cudaEventRecord(stop));
    gpu_check_launch(name);
    float ms = 0;
    GPU_CHECK(cudaEventElapsedTime(&ms, start, stop));
    Errors seen;
    GPU_CHECK(cudaMemcpy(&seen, errors, sizeof(Errors), cudaMemcpyDeviceToHost));
    char detail[256];
    std::snprintf(detail, sizeof detail,
                  "%u episodes x %d blocks x %d threads, %llu stale reads (first: episode %u block %u saw %u), "
                  "%.3f s, %.0f ns/episode",
                  count, grid, threads, seen.count, seen.first_episode, seen.first_block, seen.first_seen,
                  ms / 1e3, ms * 1e6 / count);
    report.result(seen.count == 0, name, detail);
  };

  using D = GridBarrierDesign;
  uint32_t next = 1;
  auto episodesOf = [&](uint32_t count) {
    const uint32_t first = next;
    next += count;
    return first;
  };
  run(episodes_kernel<false, D::one_word>, "grid-barrier-one-word-full-occupancy", blocks, episodesOf(episodes),
      episodes);
  // Same words, next launches: the phase continues where the last launch left it.
  run(episodes_kernel<false, D::flag_line>, "grid-barrier-flag-line-full-occupancy", blocks, episodesOf(episodes),
      episodes);
  // The default (GridBarrierDesign::chosen): launch_with_grid_barrier sets the design for
  // the grid (GridBarrier::for_grid): one_word at one block per SM, flag_line at full occupancy
  // when that is at least kFlagLineFromBlocks blocks.
  auto chosen = [&](int grid) {
    return barrier.for_grid(grid).design() == D::flag_line ? "flag_line" : "one_word";
  };
  report.result(std::strcmp(chosen(sms), "one_word") == 0, "grid-barrier-chosen-design-one-block-per-sm",
                chosen(sms));
  report.result(std::strcmp(chosen(blocks), blocks >= int(fenceline::kFlagLineFromBlocks) ? "flag_line" : "one_word") == 0,
                "grid-barrier-chosen-design-full-occupancy", chosen(blocks));
  run(episodes_kernel<false, D::chosen>, "grid-barrier-chosen-one-block-per-sm", sms, episodesOf(episodes), episodes);
  run(episodes_kernel<false, D::chosen>, "grid-barrier-chosen-full-occupancy", blocks, episodesOf(episodes),
      episodes);
  run(episodes_kernel<true, D::one_word>, "grid-barrier-split-arrive-wait-one-word-reused", blocks,
      episodesOf(episodes / 10), episodes / 10);
  run(episodes_kernel<true, D::flag_line>, "grid-barrier-split-arrive-wait-flag-line-reused", blocks,
      episodesOf(episodes / 10), episodes / 10);
  // Designs alternating launch by launch on one barrier: the flag must stay in step.
  for (int i = 0; i < 4; ++i) {
    run(episodes_kernel<false, D::one_word>, "grid-barrier-alternating-one-word", blocks, episodesOf(1001), 1001);
    run(episodes_kernel<false, D::flag_line>, "grid-barrier-alternating-flag-line", blocks, episodesOf(999), 999);
  }

  // The helper must refuse a grid one block larger than can be resident.
  fenceline::LaunchStatus refused = fenceline::launch_with_grid_barrier(
      episodes_kernel<false, GridBarrierDesign::one_word>, dim3(blocks + 1), dim3(threads), 0, 0, barrier, slots, 1u,
      1u, errors);
  report.result(refused.error == cudaErrorCooperativeLaunchTooLarge, "grid-barrier-refuses-oversized-grid",
                refused.message.c_str());
  cudaGetLastError();

  GPU_CHECK(cudaFree(slots));
  GPU_CHECK(cudaFree(errors));
  GPU_CHECK(barrier.destroy());
  return report.exit_code();
}
