// Baseline test input, version 1: one known finding (acquire-missing in
// old_spin). baseline_v2.cu is the same file after an edit: lines added
// above, and a new kernel with a new finding.
__device__ int flag;
__device__ int payload;

__global__ void old_spin(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  while (*(volatile int*)&flag == 0) {
  }
  out[0] = payload;
}
