// Issue 34, shape K (cuTENSOR's block-sparse contraction, counter-reset): a
// work-stealing loop. Each block works its own tiles from its counter and
// publishes the tile it works in its slot, only while the tile is below the
// count; then thread 0 stores -1 into a shared word, looks for a victim, and
// stores the victim's published tile there; after a barrier every thread
// reads it: -1 leaves, a tile below the count is worked (the work begins with
// a barrier), and a tile at or past the count goes straight back to thread
// 0's next store with no barrier: a thread that has not read the word yet
// would read the next value. That path is taken only for a slot value at or
// past the count, which no store of the kernel writes (the host seeds the
// slots before the launch): the hand-off is not decided by the PTX, strict
// tier (`value-from-outside-kernel`). Twin: the block publishes its tile
// before testing it against the count, so the kernel itself may leave a
// value past the count in a slot: still a warning.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s
#include <cuda/atomic>

#include <cstdint>

using Word = cuda::atomic_ref<long long, cuda::thread_scope_device>;

// The work on one tile: every thread of the block, after a barrier.
__device__ __forceinline__ void work(const float* __restrict__ in, float* __restrict__ out, long long tile) {
  __syncthreads();
  out[tile * blockDim.x + threadIdx.x] += in[tile * blockDim.x + threadIdx.x];
}

template <bool kPublishBeforeTest>
__device__ __forceinline__ void contract(const float* __restrict__ in, float* __restrict__ out,
                                         unsigned long long* counters, long long* slots,
                                         const unsigned long long* busy, long long count, int workers) {
  __shared__ long long current;
  // Own tiles: i, i + G, ... from this block's counter (the host seeds it with i).
  for (;;) {
    if (threadIdx.x == 0) current = static_cast<long long>(atomicAdd(&counters[blockIdx.x], gridDim.x));
    __syncthreads();
    const long long tile = current;
    if (kPublishBeforeTest && threadIdx.x == 0) Word(slots[blockIdx.x]).store(tile, cuda::memory_order_relaxed);
    if (tile >= count) break;
    if (!kPublishBeforeTest && threadIdx.x == 0) Word(slots[blockIdx.x]).store(tile, cuda::memory_order_relaxed);
    work(in, out, tile);
  }
  __syncthreads();  // every thread has read its last own tile before thread 0 stores again
  // Steal: the tile a busy victim published.
  for (int round = 0;; ++round) {
    if (threadIdx.x == 0) {
      current = -1;
      for (int k = 0; k < workers; ++k) {
        const int victim = (blockIdx.x + round + k) % workers;
        if (cuda::atomic_ref<const unsigned long long, cuda::thread_scope_device>(busy[victim / 64])
                .load(cuda::memory_order_relaxed) &
            (1ull << (victim % 64))) {
          current = Word(slots[victim]).load(cuda::memory_order_relaxed);
          break;
        }
      }
    }
    __syncthreads();
    const long long tile = current;
    if (tile == -1) break;
    if (tile < count) work(in, out, tile);
  }
}

__global__ void steal_published_below_count(const float* __restrict__ in, float* __restrict__ out,
                                            unsigned long long* counters, long long* slots,
                                            const unsigned long long* busy, long long count, int workers) {
  contract<false>(in, out, counters, slots, busy, count, workers);  // expect-strict: counter-reset
}
__global__ void steal_published_before_test(const float* __restrict__ in, float* __restrict__ out,
                                            unsigned long long* counters, long long* slots,
                                            const unsigned long long* busy, long long count, int workers) {
  contract<true>(in, out, counters, slots, busy, count, workers);  // expect: counter-reset
}
