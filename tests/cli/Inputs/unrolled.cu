// De-duplication: the unrolled loop repeats the spin four times in the PTX,
// all from one source line; fenceline reports it once.
__device__ int flags[4];
__device__ int payload[4];

__global__ void unrolled(int* out) { if (blockIdx.x == 0) { for (int i = 0; i < 4; ++i) { payload[i] = 1; __threadfence(); *(volatile int*)&flags[i] = 1; } return; }  // the producer
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    while (*(volatile int*)&flags[i] == 0) {  // expect: acquire-missing
    }
    out[i] = payload[i];
  }
}
