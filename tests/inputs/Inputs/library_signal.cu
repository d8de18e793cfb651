// The primary-location rule: both producers below raise their flag with a
// relaxed store after writing the data (release-missing), one inside a
// library helper (fakelib::raise_flag, an -isystem header) and one inside the
// CUDA toolkit's atomicAdd; each finding must land on the user's line that
// calls into the library. The consumers wait with an acquire.
#include <fakelib/signal.h>

__device__ __forceinline__ void wait_acquire(const int* flag, int value) {
  int v;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v != value);
}

__global__ void publish_through_library(int* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    fakelib::raise_flag(flag);  // expect: release-missing
  } else {
    wait_acquire(flag, 1);
    out[threadIdx.x] = data[threadIdx.x];
  }
}

__global__ void publish_through_atomic(int* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    atomicAdd(flag, 1);  // expect: release-missing
  } else {
    wait_acquire(flag, blockDim.x);
    out[threadIdx.x] = data[threadIdx.x];
  }
}
