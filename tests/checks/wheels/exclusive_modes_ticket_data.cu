// Issue 34, NCCL's AlltoAll_LL (docs/real-code.md, "AlltoAll_LL looked at again"): a parameter
// selects the launch's backend, and the kernel runs two phases. In the first, the staging backend
// writes each block's part; in the second, the counting backend counts the blocks with a relaxed
// atomic, and the last one reads the parts. No launch runs both backends, so the blocks that count
// on the ticket never wrote the parts: the last block's read follows no partner write. Silent in
// both tiers (main took the staging write, which reaches the ticket in the control flow, for the
// data of the count: acquire-missing on the ticket).
// The twin picks the backend by the block: the staging blocks' writes and the counting blocks'
// ticket run in one launch, and the last counter reads parts written by blocks it never
// synchronized with: acquire-missing.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ unsigned count_relaxed(unsigned* counter) {
  unsigned v;
  asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;" : "=r"(v) : "l"(counter) : "memory");
  return v;
}

// Safe: the backend is the same for the whole launch.
__global__ void ticket_of_one_backend(float* parts, unsigned* counter, float* out, int backend) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (backend == 1) parts[i] = static_cast<float>(i);
  __syncthreads();
  if (backend != 1 && threadIdx.x == 0) {
    if (count_relaxed(counter) == gridDim.x - 1) {
      float sum = 0.0f;
      for (int k = 0; k < gridDim.x * blockDim.x; ++k) sum += parts[k];
      out[0] = sum;
    }
  }
}

// Broken twin: the block picks the backend, so both run in one launch.
__global__ void ticket_of_block_backend(float* parts, unsigned* counter, float* out, int staging_blocks) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool staging = blockIdx.x < staging_blocks;
  if (staging) parts[i] = static_cast<float>(i);
  __syncthreads();
  if (!staging && threadIdx.x == 0) {
    if (count_relaxed(counter) == gridDim.x - 1) {  // expect: acquire-missing
      float sum = 0.0f;
      for (int k = 0; k < gridDim.x * blockDim.x; ++k) sum += parts[k];
      out[0] = sum;
    }
  }
}
