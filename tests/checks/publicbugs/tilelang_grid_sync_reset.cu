// Shape 5 (counter resets), TileLang's CuTe DSL grid barrier:
// https://github.com/tile-ai/tilelang/pull/2319 (merged).
// A grid barrier used several times per launch, on one counter: each block
// adds its arrival, the last arriver resets the counter to 0, the others
// poll the counter. The PR's explanation: "In each round the counter goes
// from 0 -> num_blocks -> 0. The last arriving CTA resets the counter to 0
// before the next round can start. Other CTAs may not reliably distinguish
// whether they are observing the counter before release, after reset, or
// during a later barrier round" (a waiter can miss the reset because the
// next round's arrivals already moved the counter on: it hangs, or passes
// in the wrong round). The fix adds a generation word: each block reads the
// generation before it arrives, the last arriver resets the counter and then
// bumps the generation, the others wait for the generation to change. Our
// kernel: inline PTX atomics, a persistent loop of rounds. barrier-reuse
// reports the broken barrier today (its note says no reset lies on the way
// back, which is true of the waiters' path only: the last arriver does reset;
// the hazard is that the waiters poll the word the reset writes).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ int atom_add_acq_rel(int* p, int v) {
  int old;
  asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ int ld_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release(int* p, int v) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Broken: the counter is both the arrival count and the word the waiters poll.
__device__ __noinline__ void grid_sync_counter_only(int* counter) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    if (atom_add_acq_rel(counter, 1) == int(gridDim.x) - 1) {
      st_release(counter, 0);  // the reset the waiters may miss
    } else {
      while (ld_acquire(counter) != 0) {
      }
    }
  }
  __syncthreads();
}

// Fixed: the waiters poll a generation word that only grows.
__device__ __noinline__ void grid_sync_generation(int* counter, int* generation) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    int gen = ld_acquire(generation);
    if (atom_add_acq_rel(counter, 1) == int(gridDim.x) - 1) {
      st_release(counter, 0);
      st_release(generation, gen + 1);
    } else {
      while (ld_acquire(generation) == gen) {
      }
    }
  }
  __syncthreads();
}

__global__ void rounds_counter_only(float* data, int* counter, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    data[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
    grid_sync_counter_only(counter);  // expect: barrier-reuse
    data[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x] *= 0.5f;
    grid_sync_counter_only(counter);  // expect: barrier-reuse
  }
}

__global__ void rounds_generation(float* data, int* counter, int* generation, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    data[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
    grid_sync_generation(counter, generation);
    data[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x] *= 0.5f;
    grid_sync_generation(counter, generation);
  }
}
