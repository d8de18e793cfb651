// Flag protocols for the fix tests, written with the CUDA intrinsics (so
// --fix spells its fences __threadfence()): a volatile poll
// (acquire-missing) and a signal after plain writes (release-missing).

// acquire-missing: --fix puts __threadfence() after the loop.
__global__ void wait_then_read(int* flag, float* data, float* out) { if (blockIdx.x == 0) { data[threadIdx.x] = 1.0f; __threadfence(); *(volatile int*)flag = 1; return; }  // the producer
  while (*(volatile const int*)flag == 0) {
    __nanosleep(32);
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// release-missing: block 0 publishes, the other blocks wait with an acquire
// (cuda::atomic_ref would do; a volatile poll plus a fence here). --fix puts
// __threadfence() before the signal, after the __syncthreads() that gathers
// every thread's write.
__global__ void publish(float* data, int* flag, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      atomicExch(flag, 1);
    }
    return;
  }
  while (*(volatile int*)flag == 0) {
  }
  __threadfence();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}
