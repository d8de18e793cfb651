// CLI test input: a flag spin with no acquire (acquire-missing at line 9),
// fixed when compiled with -DFIXED. Tests pass the macro through --nvcc-flag
// or compile_commands.json to see that the flags reach nvcc.
__device__ int flag;
__device__ int payload;

__global__ void wait_then_read(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  if (threadIdx.x == 0) {
    while (*(volatile int*)&flag == 0) {
    }
#ifdef FIXED
    __threadfence();
#endif
    out[blockIdx.x] = payload;
  }
}
