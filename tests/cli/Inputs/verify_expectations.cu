// --verify test input: two spins without acquire, one written in the kernel,
// one in an inlined helper whose expectation sits at the call site (an outer
// frame of the inline chain). With -DFIXED both are fixed, so the
// expectations go missing.
__device__ int flag;
__device__ int payload;

__device__ __forceinline__ void spin(const int* f) {
  while (*(volatile const int*)f == 0) {
  }
#ifdef FIXED
  __threadfence();
#endif
}

__global__ void direct(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  while (*(volatile int*)&flag == 0) {  // expect: acquire-missing
  }
#ifdef FIXED
  __threadfence();
#endif
  out[0] = payload;
}

__global__ void through_helper(int* out) { if (blockIdx.x == 0) { payload = 1; __threadfence(); *(volatile int*)&flag = 1; return; }  // the producer (issue 29: the partner is in the kernel)
  spin(&flag);  // expect: acquire-missing
  out[1] = payload;
}
