// A flag spin without acquire: the data read after the loop may be stale
// (acquire-missing at line 8), so the check step fails the build.
__device__ int ready;
__device__ int data;

__global__ void wait_then_read(int* out) { if (blockIdx.x == 0) { data = 1; __threadfence(); *(volatile int*)&ready = 1; return; }  // the producer
  if (threadIdx.x == 0) {
    while (*(volatile int*)&ready == 0) {
    }
    out[blockIdx.x] = data;
  }
}
