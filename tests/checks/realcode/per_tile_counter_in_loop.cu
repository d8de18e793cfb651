// RUN: %fenceline check --verify --arch sm_90a %s
// Shape found in CUTLASS's stream-K GEMM scheduler (tools/realcode, docs/real-code.md): a
// persistent CTA loops over work units; each output tile has its own arrival counter in a
// host-zeroed workspace, indexed by the tile the current unit belongs to, and a peer waits
// until that tile's counter reaches a fixed value. The loop brings the wait back, but on a
// different counter each time: no counter is used twice, so this is not barrier-reuse.
#include <cstdint>

constexpr int kThreads = 128;

__device__ __forceinline__ int load_acquire(const int* p) {
  int v;
  asm volatile("ld.global.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void release_add(int* p, int v) {
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__global__ void persistent_tile_handoff(const int* unit_tile, const int* unit_first, int units,
                                        float* partials, int* locks, float* out) {
  for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
    int tile = unit_tile[unit];
    int* lock = locks + tile;
    float* slot = partials + tile * kThreads;
    if (unit_first[unit]) {
      slot[threadIdx.x] = static_cast<float>(unit);
      __syncthreads();
      if (threadIdx.x == 0) release_add(lock, 1);
    } else {
      if (threadIdx.x == 0)
        while (load_acquire(lock) < 1) {
        }
      __syncthreads();
      out[tile * kThreads + threadIdx.x] += slot[threadIdx.x];
    }
    __syncthreads();
  }
}
