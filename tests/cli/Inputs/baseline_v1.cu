// Baseline test input, version 1: one known finding (acquire-missing in
// old_spin). baseline_v2.cu is the same file after an edit: lines added
// above, and a new kernel with a new finding.
__device__ int flag;
__device__ int payload;

__global__ void old_spin(int* out) {
  while (*(volatile int*)&flag == 0) {
  }
  out[0] = payload;
}
