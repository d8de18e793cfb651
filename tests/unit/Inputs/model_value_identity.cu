// Identity facts of the value analysis (issue 11): constants, negations,
// loop-invariant thresholds, values computed from an atomic's result,
// thread / block identity tests, merged (per-trip) addresses and special
// registers, over real nvcc output.
#include <cstdint>

__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// A counting barrier: arrive with +1, leave with -1 (atomicSub), wait until
// the count reaches the parameter `need` (invariant); the arrival's returned
// value decides the phase (readsAtomicResult).
extern "C" __global__ void counting_barrier(unsigned* count, unsigned* phase, unsigned need, float* out) {
  if ((threadIdx.x | threadIdx.y) == 0) {
    const unsigned old = atomicAdd(count, 1u);
    const unsigned myPhase = (old / need) & 1u;
    while (((ld_acquire(count) / need) & 1u) == myPhase) {
    }
    phase[blockIdx.x] = myPhase;
    atomicSub(count, 1u);
  }
  __syncthreads();
  if (blockIdx.x == 0) out[threadIdx.x] = static_cast<float>(*phase);
}

// A persistent loop: tile = blockIdx.x, += gridDim.x; the lock of each tile
// (locks[tile]) changes from trip to trip (a merged address); the block's
// own slot (done[blockIdx.x]) does not.
extern "C" __global__ void persistent_locks(unsigned* locks, unsigned* done, int tiles) {
  if (threadIdx.x != 0) return;
#pragma unroll 1
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    while (atomicCAS(&locks[tile], 0u, 1u) != 0u) {
    }
    atomicExch(&locks[tile], 0u);
  }
  atomicAdd(&done[blockIdx.x], 1u);
}
