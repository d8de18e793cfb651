// Shape P3 of session 27's held-out look (docs/real-code.md): cuSOLVER's getrf_wo_pivot kernel
// (linked statically into Open3D) in the form session 26's rule missed. Every fourth step the
// two flag words are read once under %p (`sync`); on the other side the registers get the
// constants 1 and 2; the spin is skipped when `(left & 1) && (up >> 1 & 1)`, and after it a
// `@!%p bra` skips `membar.gl`. On the skip side the constants pass the entry test, so the spin
// runs only when %p held, and then the fence runs: no path from the poll misses it.
// Main (dcd081d) walked the `@!%p bra` around the fence after the poll (a warning); session 28
// evaluates the spin's entry test with the constants of the paths where %p is false
// (model/TripDecidedBranches.h). fence_under_wait_predicate.cu has session 26's form.
// The twin `skip_side_constant_fails_the_test` puts 0 in `up` on the skip side: the spin may
// run when %p is false, past the branch that skips the fence (a warning).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ int load_relaxed(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ int load_relaxed_twin(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}

__global__ void skip_side_constants_pass_the_test(int* left, int* up, float* panel, float* out, int steps,
                                                   int last) {
  float acc = 0.f;
  for (int k = 0; k < steps; ++k) {
    const bool sync = (k & 3) == 3 && k < last;
    int l = 1, u = 2;
    if (sync) l = left[k];
    if (sync) u = up[k];
    if (!((l & 1) && ((u >> 1) & 1))) {
      while (((load_relaxed(&up[k]) & 2) == 0) | ((load_relaxed(&left[k]) & 1) == 0)) {
      }
    }
    if (sync) __threadfence();
    acc += panel[k * blockDim.x + threadIdx.x];
    panel[(k + 1) * blockDim.x + threadIdx.x] = acc;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      atomicOr(&left[blockIdx.x], 3);
      atomicOr(&up[blockIdx.x], 3);
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void skip_side_constant_fails_the_test(int* left, int* up, float* panel, float* out, int steps,
                                                  int last) {
  float acc = 0.f;
  for (int k = 0; k < steps; ++k) {
    const bool sync = (k & 3) == 3 && k < last;
    int l = 1, u = 0;
    if (sync) l = left[k];
    if (sync) u = up[k];
    if (!((l & 1) && ((u >> 1) & 1))) {
      while (((load_relaxed_twin(&up[k]) & 2) == 0) | ((load_relaxed_twin(&left[k]) & 1) == 0)) {
      }
    }
    if (sync) __threadfence();
    acc += panel[k * blockDim.x + threadIdx.x];
    panel[(k + 1) * blockDim.x + threadIdx.x] = acc;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      atomicOr(&left[blockIdx.x], 3);
      atomicOr(&up[blockIdx.x], 3);
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
