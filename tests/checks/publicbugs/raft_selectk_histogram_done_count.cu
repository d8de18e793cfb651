// Shape 1 with shape 2's gap (a block counts itself done before all its
// threads have finished writing), RAFT radix select-k:
// https://github.com/rapidsai/raft/issues/2997 (flaky test),
// https://github.com/NVIDIA/raft/pull/3041 (fix, merged).
// Every block adds its items to a global histogram, then one thread counts the
// block finished on a global counter; the block that finishes last reads the
// whole histogram to choose the next digit. The PR: the blocks "signal
// completion via finished_block_cnt, but [this] does not guarantee all threads
// are complete with the filter_and_histogram function", so it puts a
// __syncthreads() before the increment. Without the barrier the counting
// thread's fence and increment can run while other threads of its block are
// still adding to the histogram, and the last block reads counts that are not
// yet there (a user in the thread suspects it behind illegal memory accesses
// in cuVS). Our kernel: every thread fences after its histogram updates (a
// fence orders only its own thread's accesses), thread 0 counts with
// atomicInc, and the last block acquires before reading; only the barrier
// differs.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

template <bool kBarrierBeforeCount>
__device__ __forceinline__ void histogram_pass(const uint32_t* keys, int n, int shift, unsigned* histogram,
                                               unsigned* finished_blocks, unsigned* chosen) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&histogram[(keys[i] >> shift) & 255u], 1u);
  __threadfence();
  if (kBarrierBeforeCount) __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) {
    const unsigned done = atomicInc(finished_blocks, gridDim.x - 1);  // expect: release-missing
    last = done == gridDim.x - 1;
  }
  __syncthreads();
  if (last) {
    __threadfence();
    if (threadIdx.x < 256) {
      const unsigned count = histogram[threadIdx.x];
      if (count > static_cast<unsigned>(n) / 2) *chosen = threadIdx.x;
    }
  }
}

__global__ void selectk_count_without_barrier(const uint32_t* keys, int n, int shift, unsigned* histogram,
                                              unsigned* finished_blocks, unsigned* chosen) {
  histogram_pass<false>(keys, n, shift, histogram, finished_blocks, chosen);
}
__global__ void selectk_count_after_barrier(const uint32_t* keys, int n, int shift, unsigned* histogram,
                                            unsigned* finished_blocks, unsigned* chosen) {
  histogram_pass<true>(keys, n, shift, histogram, finished_blocks, chosen);
}
