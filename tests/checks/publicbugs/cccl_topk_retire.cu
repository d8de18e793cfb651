// Shape 2 (signalling threads fence only themselves), CUB/CCCL DeviceTopK:
// https://github.com/NVIDIA/cccl/pull/10627 (merged).
// Every thread of a block adds its counts into a global histogram; then
// thread 0 counts the block as retired, and the last block to retire computes
// a prefix sum over the histogram. Before the fix every thread executed
// __threadfence() and thread 0 then signalled, with no barrier: thread 0's
// fence orders thread 0's own adds only, and nothing made thread 0 wait for
// the other threads' adds (and fences) before its signal. The fix puts a
// __syncthreads() before the fence ("Wait for all threads in this block to
// finish merge_histograms() before thread 0 signals completion"). Our kernel:
// the last block acquires after its count in both variants, so only the
// release differs.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

template <bool kBarrier>
__device__ __forceinline__ void merge_and_retire(const int* keys, int n, unsigned* histogram, unsigned* retired,
                                                 unsigned* prefix) {
  __shared__ bool last;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&histogram[keys[i] & 255], 1u);  // every thread's contribution
  if (kBarrier) __syncthreads();  // the fix: gather the block first
  __threadfence();
  if (threadIdx.x == 0) last = atomicAdd(retired, 1u) == gridDim.x - 1;  // expect: release-missing
  __syncthreads();
  if (last) {
    __threadfence();  // the last block acquires (both variants)
    if (threadIdx.x == 0) {
      unsigned running = 0;
      for (int b = 0; b < 256; ++b) {
        running += histogram[b];
        prefix[b] = running;
      }
    }
  }
}

__global__ void topk_retire_without_barrier(const int* keys, int n, unsigned* histogram, unsigned* retired,
                                            unsigned* prefix) {
  merge_and_retire<false>(keys, n, histogram, retired, prefix);
}
__global__ void topk_retire_after_barrier(const int* keys, int n, unsigned* histogram, unsigned* retired,
                                          unsigned* prefix) {
  merge_and_retire<true>(keys, n, histogram, retired, prefix);
}
