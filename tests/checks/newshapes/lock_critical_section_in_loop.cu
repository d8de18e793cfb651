// A spin lock whose critical section sits inside the spin loop (issue 30,
// shape 10): the thread retries a compare-and-swap of the lock word and, on
// the iteration where the swap succeeds, reads and updates the protected data
// and unlocks, then leaves the loop. The successful swap observes the previous
// holder's unlock; with relaxed atomics nothing orders the data: an acquire is
// needed between the swap and the reads, a release between the writes and the
// unlock. The reads are inside the loop, on the branch taken when the swap
// returned the unlocked value, the same test as the loop's exit.
// Shapes: atomicCAS in a `done` loop (Kokkos style), cuda::atomic_ref
// compare_exchange_strong with break; fixed forms with fences or acq/rel orders.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>

// 1. atomicCAS / atomicExch, a `done` flag.
template <bool kFences>
__device__ __forceinline__ void add_locked(float* total, float v, int* lock) {
  bool done = false;
  while (!done) {
    if (atomicCAS(lock, 0, 1) == 0) {  // expect: acquire-missing
      if (kFences) __threadfence();
      *total += v;
      if (kFences) __threadfence();
      atomicExch(lock, 0);  // expect: release-missing
      done = true;
    }
  }
}
__global__ void cas_lock_unfenced(float* total, const float* in, int* lock) { add_locked<false>(total, in[threadIdx.x], lock); }
__global__ void cas_lock_fenced(float* total, const float* in, int* lock) { add_locked<true>(total, in[threadIdx.x], lock); }

// 2. cuda::atomic_ref, compare_exchange_strong, break out of an endless loop;
// relaxed orders (broken) or acquire on success and a release store (fixed).
template <bool kOrdered>
__device__ __forceinline__ void push_locked(int* items, int* count, int value, int* lock) {
  cuda::atomic_ref<int, cuda::thread_scope_device> l(*lock);
  for (;;) {
    int expected = 0;
    if (l.compare_exchange_strong(expected, 1, kOrdered ? cuda::memory_order_acquire : cuda::memory_order_relaxed,  // expect: acquire-missing
                                  cuda::memory_order_relaxed)) {
      const int n = *count;
      items[n] = value;
      *count = n + 1;
      l.store(0, kOrdered ? cuda::memory_order_release : cuda::memory_order_relaxed);  // expect: release-missing
      break;
    }
  }
}
__global__ void ref_lock_relaxed(int* items, int* count, int* lock) { push_locked<false>(items, count, threadIdx.x, lock); }
__global__ void ref_lock_acq_rel(int* items, int* count, int* lock) { push_locked<true>(items, count, threadIdx.x, lock); }
