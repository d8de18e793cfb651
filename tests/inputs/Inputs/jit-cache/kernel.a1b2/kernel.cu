// A JIT cache entry (DeepGEMM-style: one folder per generated kernel): the
// source needs the flags its JIT passed nvcc (an include folder and macros),
// as given to fenceline with --flags-file.
#include <jit_helpers.cuh>

__global__ void spin_kernel(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer
  if (threadIdx.x == 0) {
    while (jit::load_flag(&flag) == 0) {}  // expect: acquire-missing
    out[blockIdx.x] = payload;
  }
}
