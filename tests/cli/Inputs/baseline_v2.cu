// Baseline test input, version 2: baseline_v1.cu after an edit. The known
// finding (acquire-missing in old_spin) moved down by four lines; new_spin
// is new and brings a new finding.
#include <cstdint>

// Three lines added above the known finding shift it down; its fingerprint
// (check, file, function, text of the flagged line) does not change.
__device__ int flag;
__device__ int payload;

__global__ void old_spin(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  while (*(volatile int*)&flag == 0) {
  }
  out[0] = payload;
}

__global__ void new_spin(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  while (*(volatile int*)&flag == 0) {
  }
  out[1] = payload;
}
