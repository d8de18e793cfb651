// Shape 1 (last block does the work), PyTorch:
// https://github.com/pytorch/pytorch/pull/128455
// A two-stage reduction: every block stores its partial result to a staging
// buffer, fences, and counts itself done with an atomic add on a semaphore;
// the block whose add returns gridDim - 1 is the last one and combines all
// partials. Before the fix the last block read the staging buffer right after
// seeing that count: the writers' release was there, the reader's acquire was
// not (the PR completes "the acquire pattern after atomic" with a
// __threadfence() in the last block). After the fix the last block fences
// before its reads. There is no spin loop: the add's returned value is the
// observation. Our own kernel, in the same shape (a shared flag hands the
// decision from thread 0 to the block).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ bool mark_block_done(unsigned* semaphore) {
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned ticket = atomicAdd(semaphore, 1u);  // relaxed RMW: the observation
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  return last;
}

__global__ void last_block_reads_without_acquire(const float* in, float* staging, unsigned* semaphore, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (threadIdx.x == 0) staging[blockIdx.x] = v;
  __threadfence();  // writers release their partial before counting
  if (mark_block_done(semaphore)) {  // expect: acquire-missing
    float sum = 0.f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) sum += staging[b];
    out[threadIdx.x] = sum;
  }
}

__global__ void last_block_fences_before_reading(const float* in, float* staging, unsigned* semaphore, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (threadIdx.x == 0) staging[blockIdx.x] = v;
  __threadfence();
  if (mark_block_done(semaphore)) {
    __threadfence();  // completes the acquire pattern after the atomic
    float sum = 0.f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) sum += staging[b];
    out[threadIdx.x] = sum;
  }
}
