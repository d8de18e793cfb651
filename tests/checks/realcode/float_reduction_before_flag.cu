// RUN: %fenceline check --verify --arch sm_90a %s
// Shape found in CUTLASS's stream-K GEMM scheduler (tools/realcode, docs/real-code.md): CTAs
// that share an output tile accumulate their partial sums into one workspace with float
// atomicAdd, then signal through a lock counter placed in the same allocation, after the
// partials (fence.acq_rel.gpu + red.relaxed.gpu: a correct release). The float atomics are the
// data being published, not a signal: nobody polls them. A persistent CTA runs
// both roles in turn, so a first split's plain stores reach a later unit's float atomics. Nothing here should be reported.
#include <cstdint>

constexpr int kThreads = 128;
constexpr int kPerThread = 4;  // partial sums per thread, striped across the group

__device__ __forceinline__ int load_acquire(const int* p) {
  int v;
  asm volatile("ld.global.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// CUTLASS synchronizes the consumer warp group with a named barrier, not __syncthreads().
__device__ __forceinline__ void group_sync() { asm volatile("bar.sync 1, %0;" ::"n"(kThreads) : "memory"); }

__device__ __forceinline__ void release_add(int* p, int v) {
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// A persistent CTA walks its work units; units of one tile are handed out in split order.
// workspace: tiles * kThreads * kPerThread partial sums, then one lock counter per tile (host-zeroed).
__global__ void split_k_fixup(float* workspace, int tiles, const int* unit_tile, const int* unit_split,
                              int units, const float* partial) {
  for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
    int tile = unit_tile[unit];
    float* sums = workspace + tile * kThreads * kPerThread;
    int* lock = reinterpret_cast<int*>(workspace + tiles * kThreads * kPerThread) + tile;
    const float* mine = partial + unit * kThreads * kPerThread;
    if (unit_split[unit] == 0) {
#pragma unroll
      for (int k = 0; k < kPerThread; ++k)  // the first split initializes the partials
        sums[k * kThreads + threadIdx.x] = mine[k * kThreads + threadIdx.x];
    } else {
      if (threadIdx.x == 0)
        while (load_acquire(lock) < 1) {
        }
      group_sync();
#pragma unroll
      for (int k = 0; k < kPerThread; ++k)  // later splits accumulate into them
        atomicAdd(&sums[k * kThreads + threadIdx.x], mine[k * kThreads + threadIdx.x]);
    }
    group_sync();
    if (threadIdx.x == 0) release_add(lock, 1);
  }
}
