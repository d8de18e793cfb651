// The fixed JIT cache entry: an acquire between the flag and the data.
#include <jit_helpers.cuh>

__global__ void spin_kernel_fixed(int* out) {
  if (threadIdx.x == 0) {
    while (jit::load_flag(&flag) == 0) {}
    __threadfence();
    out[blockIdx.x] = payload;
  }
}
