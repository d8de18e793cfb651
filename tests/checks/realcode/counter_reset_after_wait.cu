// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --strict --verify --arch sm_90a %s
// Fixed false positive (docs/real-code.md, "counter reset after its wait"): shape found in CUTLASS's
// distributed-GEMM full barrier. Each GPU resets its own iteration flags, adds one to every
// peer's arrival counter (peer pointers), waits until its own counter holds all peers'
// arrivals, then subtracts them again so the counter is ready for the next launch. The adds
// publish the flag resets without a release: a true positive, expected below. The final
// subtraction is reported too, as a signal publishing the same writes, but nobody observes it:
// peers only add to this counter and the next wait on it is in a later launch.
#include <cstdint>

__device__ __forceinline__ unsigned load_uncached(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.cv.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Pointer tables passed by value, as kernel parameters (CUTLASS passes cutlass::Array).
constexpr int kGpus = 2;
constexpr int kIterations = 2;
struct Pointers {
  unsigned* p[kGpus > kIterations ? kGpus : kIterations];
};

__global__ void any_to_any_barrier(Pointers arrival, Pointers flags, unsigned me) {
#pragma unroll
  for (int i = 0; i < kIterations; ++i) flags.p[i][0] = 0;
#pragma unroll
  for (unsigned d = 0; d < kGpus; ++d)
    if (d != me) atomicAdd(arrival.p[d], 1u);  // expect-strict: release-missing
  while (load_uncached(arrival.p[me]) < kGpus - 1) __nanosleep(40);
  atomicSub(arrival.p[me], kGpus - 1);
}
