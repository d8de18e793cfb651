// Renderer test input (tests/report/*.test): a flag spin inside an inlined
// helper, so the acquire-missing finding carries an inline chain, a note and
// a fix. Keep the line numbers stable: the tests check them.
__device__ int flag;
__device__ int payload;

__device__ __forceinline__ void wait_for(const int* f) {
  while (*(volatile const int*)f == 0) {
  }
}

__global__ void consumer(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  wait_for(&flag);
  out[threadIdx.x] = payload;
}
