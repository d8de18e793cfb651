// Shape 3 (per-warp release) with a read-modify-write poll (shape 10),
// Triton: https://github.com/triton-lang/triton/pull/4504 (analysis),
// https://github.com/triton-lang/triton/pull/4542 (fix in the test, merged),
// https://github.com/ROCm/triton/pull/632 (the same in the stream-K kernel,
// merged). A block takes a spin lock with a compare-and-swap loop, updates
// the data it protects in a critical section, and releases the lock with an
// exchange. In the lowering at fault the compare-and-swap was made once per
// block (a broadcast through shared memory and a barrier) but the exchange
// ran per warp: the first warp to finish its part of the critical section
// released the lock while another warp of the block was still inside. The
// fix puts a block barrier (tl.debug_barrier) between the critical section
// and the release. Our kernel: thread 0 takes the lock, lane 0 of every warp
// releases it (broken) or thread 0 releases it after __syncthreads() (fixed).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>

__device__ __forceinline__ void lock(int* word) {
  __shared__ int taken;
  if (threadIdx.x == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> l(*word);
    int expected = 0;
    while (!l.compare_exchange_strong(expected, 1, cuda::memory_order_acquire, cuda::memory_order_relaxed))
      expected = 0;
    taken = 1;
  }
  __syncthreads();
  (void)taken;
}

__global__ void accumulate_per_warp_unlock(const float* partial, float* total, int* word, int n) {
  lock(word);
  for (int i = threadIdx.x; i < n; i += blockDim.x) total[i] += partial[blockIdx.x * n + i];
  if (threadIdx.x % 32 == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> l(*word);
    l.exchange(0, cuda::memory_order_release);  // expect: elected-arrive
  }
}

__global__ void accumulate_block_unlock(const float* partial, float* total, int* word, int n) {
  lock(word);
  for (int i = threadIdx.x; i < n; i += blockDim.x) total[i] += partial[blockIdx.x * n + i];
  __syncthreads();  // every warp has left the critical section
  if (threadIdx.x == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> l(*word);
    l.exchange(0, cuda::memory_order_release);
  }
}
