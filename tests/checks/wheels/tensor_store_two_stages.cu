// Shape A of torchao's MXFP8 kernels (docs/real-code.md, "First look: nvJPEG, cuSPARSELt, torchao's
// MXFP8 kernels"): one shared array holds two stages for TMA tensor stores. Each round the block
// writes one stage, fences the proxy, and thread 0 stores it with cp.async.bulk.tensor and commits;
// before a stage is written again thread 0 waits with cp.async.bulk.wait_group.read 1: the other
// stage's store may stay in flight. How many bytes a tensor store reads is set by the box of its
// tensor map, which the PTX does not hold, so whether the store of stage 0 reaches into stage 1 is
// not decided: the same-bytes link is `unknown-extent`, bulk-store-reuse strict tier only (stage 0's
// write, below the start of stage 1's store, meets no store at all).
// The twin keeps one stage: the round's write covers the first bytes of the store still in
// flight (wait_group.read 1 lets it run): bulk-store-reuse, default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void store_tile(const void* map, const float* src, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(map),
               "r"(smem(src)), "r"(0), "r"(y)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// Before a stage is written: at most one store in flight, then the block goes on.
__device__ __forceinline__ void wait_one_in_flight() {
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
  __syncthreads();
}
// After it: hand it to the async proxy and store it.
__device__ __forceinline__ void publish(const void* map, const float* stage, int r) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) store_tile(map, stage, r * 16);
}

__device__ __forceinline__ void drain() {
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

// 512 threads: thread t writes word t of the stage.
__global__ void __launch_bounds__(512) two_stages(const __grid_constant__ uint64_t map, int rounds) {
  __shared__ alignas(128) float stages[2 * 512];
  for (int r = 0; r + 1 < rounds; r += 2) {
    wait_one_in_flight();
    stages[threadIdx.x] = float(r * 512 + threadIdx.x);  // stage 1's store starts beyond: no finding
    publish(&map, stages, r);
    wait_one_in_flight();
    stages[512 + threadIdx.x] = float(r * 512 + 512 + threadIdx.x);  // expect-strict: bulk-store-reuse
    publish(&map, stages + 512, r + 1);
  }
  drain();
}

__global__ void __launch_bounds__(512) one_stage(const __grid_constant__ uint64_t map, int rounds) {
  __shared__ alignas(128) float stages[2 * 512];
  for (int r = 0; r < rounds; ++r) {
    wait_one_in_flight();
    stages[threadIdx.x] = float(r * 512 + threadIdx.x);  // expect: bulk-store-reuse
    publish(&map, stages, r);
  }
  drain();
}
