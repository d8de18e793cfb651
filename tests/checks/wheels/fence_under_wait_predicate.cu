// Shape from the wheels sample (docs/real-code.md, "The wheels sample"): cuSOLVER's
// getrf_wo_pivot kernel. Every fourth step of a loop waits for two flags that other blocks
// raise: when the step synchronizes, each flag is first read once, and the spin runs only if
// one of them is not yet set; then, under the same condition as the first reads, a fence.
// nvcc keeps the two conditions apart: `@%p bra` around the first reads, the spin entered on
// (need-left || need-up), then `@%p bra` around `membar.gl` again, on the same predicate %p.
// Safe: the spin runs only when %p is false, and then the fence runs too, before the panel is
// read: every path on which a flag was observed (by the first read or the spin) passes the
// fence. The path from the spin's exit that skips the fence needs %p true, which the spin's
// own entry excludes.
// Main (e507211) took the `@%p bra` that skips the fence after the spin as feasible (this test
// was XFAIL); session 26's rule for cuDSS's shape J prunes it: the spin's entry condition
// (`%rs11 | %rs10` nonzero, each zeroed on the trip and set only where %p is false) decides %p
// (model/TripDecidedBranches.h; poll_and_fence_one_trip_predicate.cu has the twin that fires).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__global__ void every_fourth_step_waits(int* left, int* up, float* panel, float* out, int steps) {
  float acc = 0.f;
  for (int k = 0; k < steps; ++k) {
    const bool sync = (k & 3) == 3;
    bool needLeft = false, needUp = false;
    if (sync) needLeft = (left[k] & 1) == 0;
    if (sync) needUp = (up[k] & 2) == 0;
    if (needLeft || needUp) {
      while (((*(volatile int*)&left[k] >> 1) & *(volatile int*)&up[k] & 1) == 0) {
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
