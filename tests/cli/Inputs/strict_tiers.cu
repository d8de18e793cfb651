// CLI test input for the tiers (issue 29): `full` has every link of its acquire-missing hazard
// in the kernel (block 0 writes the data and raises the flag); `consumer_only` spins on a flag
// that nothing in the kernel raises (the partner is outside it: strict tier).
__device__ int flag;
__device__ int payload;

__global__ void full(int* out) {
  if (blockIdx.x == 0) {
    payload = 1;
    __threadfence();
    *(volatile int*)&flag = 1;
    return;
  }
  while (*(volatile int*)&flag == 0) {
  }
  out[blockIdx.x] = payload;
}

__device__ int other_flag;
__device__ int other_payload;

__global__ void consumer_only(int* out) {
  while (*(volatile int*)&other_flag == 0) {
  }
  out[blockIdx.x] = other_payload;
}
