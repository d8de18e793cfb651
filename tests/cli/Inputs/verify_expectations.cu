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

__global__ void direct(int* out) {
  while (*(volatile int*)&flag == 0) {  // expect: acquire-missing
  }
#ifdef FIXED
  __threadfence();
#endif
  out[0] = payload;
}

__global__ void through_helper(int* out) {
  spin(&flag);  // expect: acquire-missing
  out[1] = payload;
}
