// bar.red predicates for the memory-analysis unit tests (issue 11, shape 6):
// __syncthreads_or/and/count compile to bar.red.or.pred / bar.red.and.pred /
// bar.red.popc.u32, which WRITE their destination (a predicate, or a count).
// The one operand table must list that destination, so that the loop exit
// traces back through bar.red to the volatile load: each loop below is a spin
// loop whose poll is the ld.volatile; the last kernel's loop is not (bar.red
// of a value that does not come from memory). Each spin is followed by a read
// of `data` without a fence: acquire-missing on the first three kernels.

extern "C" __global__ void bar_red_or(const volatile int* flag, const float* data, float* out) {
  while (__syncthreads_or(*flag == 0)) {
  }
  out[threadIdx.x] = data[threadIdx.x];
}

extern "C" __global__ void bar_red_and(const volatile int* flags, const float* data, float* out) {
  while (!__syncthreads_and(flags[threadIdx.x] != 0)) {
  }
  out[threadIdx.x] = data[threadIdx.x];
}

extern "C" __global__ void bar_red_popc(const volatile int* flags, int need, const float* data, float* out) {
  while (__syncthreads_count(flags[threadIdx.x] != 0) < need) {
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// Not a spin loop: the voted value is the loop counter, nothing is read from memory.
extern "C" __global__ void bar_red_counter(float* out, int n) {
  int i = 0;
  while (__syncthreads_or(i + (int)threadIdx.x < n)) ++i;
  out[threadIdx.x] = (float)i;
}
