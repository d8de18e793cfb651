// Baseline release-missing (a block-wide publish before a counter hand-off),
// nvFuser: https://github.com/NVIDIA/Fuser/pull/2391 (merged).
// Serial split-K: the blocks of one output tile take turns; block k waits
// until the semaphore says k, accumulates its partial into the output tile,
// then its thread 0 hands the semaphore to block k + 1 (the last block resets
// it). Before the fix the release was a __syncthreads() and thread 0's
// semaphore update: nothing made the other threads' output writes visible to
// other blocks first. The fix puts a __threadfence() before the
// __syncthreads(), executed by every thread ("__threadfence does not
// synchronize the threads ... we need to sync so that all the threads finish
// their fences before thread 0 updates the semaphore"). Our kernel: the wait
// side acquires correctly in both variants, so only the release differs.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>

__device__ __forceinline__ void serialize_wait(int* semaphore, int turn) {
  if (threadIdx.x == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> s(*semaphore);
    while (s.load(cuda::memory_order_acquire) != turn) {
    }
  }
  __syncthreads();
}

template <bool kFence>
__device__ __forceinline__ void serialize_release(int* semaphore, int turn, int segments) {
  if (kFence) __threadfence();  // every writer, before the barrier
  __syncthreads();
  if (threadIdx.x == 0) {
    int next = turn + 1 == segments ? 0 : turn + 1;  // the last block resets the semaphore
    *(volatile int*)semaphore = next;  // expect: release-missing
  }
}

template <bool kFence>
__device__ __forceinline__ void accumulate_tile(const float* partial, float* tile, int* semaphore) {
  int turn = blockIdx.y;  // split index along K
  float mine = partial[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x];
  serialize_wait(semaphore + blockIdx.x, turn);
  float* out = tile + blockIdx.x * blockDim.x + threadIdx.x;
  *out = (turn == 0 ? 0.f : *out) + mine;
  serialize_release<kFence>(semaphore + blockIdx.x, turn, gridDim.y);
}

__global__ void serial_splitk_unfenced(const float* partial, float* tile, int* semaphore) {
  accumulate_tile<false>(partial, tile, semaphore);
}
__global__ void serial_splitk_fenced(const float* partial, float* tile, int* semaphore) {
  accumulate_tile<true>(partial, tile, semaphore);
}
