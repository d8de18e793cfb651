// acquire-missing on a read-modify-write that one block makes of its own output (issue 34, shape
// P4: cuDNN's batch norm updating the running mean). A persistent kernel: each iteration every
// block stores its partial sums into a workspace, thread 0 arrives at a grid barrier (fence, then
// atomicAdd) and spins on the counter with volatile loads, no fence after; the block then reads
// every partial with volatile loads (the disputed volatile-reads-after-a-volatile-poll form:
// strict tier), and block 0 alone, one thread per channel, updates the running mean by a read, a
// blend and a write (`((threadIdx.x >> 4) | blockIdx.x) == 0`). That read and that write are
// both confined to block 0: no other block ever writes what it reads, and the thread reads its
// own earlier write in program order. The pair is no partner's data.
// Twin: the running mean is read by block 0 and written by block 1 (true: block 1's write before
// its arrival, block 0's plain read after its unfenced volatile spin).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s

// Safe in the default tier: block 0 reads and writes its running mean.
__global__ void running_mean_block0(const float* x, float* ws, unsigned* count, float* mean, int C, int iters,
                                    float f) {
  const int c = threadIdx.x;
  for (int it = 0; it < iters; ++it) {
    float* part = ws + (it & 1) * gridDim.x * C;
    if (c < C) part[blockIdx.x * C + c] = x[(it * gridDim.x + blockIdx.x) * C + c];
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(count, 1u);
      while (*(volatile unsigned*)count < (it + 1) * gridDim.x) {  // expect-strict: acquire-missing
      }
    }
    __syncthreads();
    float m = 0.0f;
    if (c < C)
      for (unsigned b = 0; b < gridDim.x; ++b) m += ((volatile float*)part)[b * C + c];
    if (((threadIdx.x >> 4) | blockIdx.x) == 0 && c < C) mean[c] = (1.0f - f) * mean[c] + f * m;
  }
}

// Broken twin: block 1 writes the running mean that block 0 reads.
__global__ void running_mean_block1_writes(const float* x, float* ws, unsigned* count, float* mean, float* out,
                                           int C, int iters, float f) {
  const int c = threadIdx.x;
  for (int it = 0; it < iters; ++it) {
    float* part = ws + (it & 1) * gridDim.x * C;
    if (c < C) part[blockIdx.x * C + c] = x[(it * gridDim.x + blockIdx.x) * C + c];
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(count, 1u);
      while (*(volatile unsigned*)count < (it + 1) * gridDim.x) {  // expect: acquire-missing
      }
    }
    __syncthreads();
    float m = 0.0f;
    if (c < C)
      for (unsigned b = 0; b < gridDim.x; ++b) m += ((volatile float*)part)[b * C + c];
    if (((threadIdx.x >> 4) | blockIdx.x) == 0 && c < C) out[it * C + c] = (1.0f - f) * mean[c] + f * m;
    if ((threadIdx.x >> 4) == 0 && blockIdx.x == 1 && c < C) mean[c] = m;
  }
}
