// Shape 10 (a poll through a read-modify-write), Kokkos lock-based atomics on
// CUDA: https://github.com/kokkos/kokkos/issues/3038 ("Missing write fence
// for lock based atomics on CUDA": complex<double> atomics failed a
// correctness check), https://github.com/kokkos/kokkos/pull/3208 (fix,
// merged, "Adding threadfence for lock based atomics"; "the lock acquire and
// release needs to be sequenced with the actual data access").
// Types without a native atomic are updated under a per-address spin lock:
// the thread spins on atomicCAS(lock, 0, 1) until it returns 0, reads and
// writes the value with plain accesses, and unlocks with atomicExch(lock, 0).
// Both atomics are relaxed: the compare-and-swap that wins observes the
// previous holder's unlock but does not acquire its data, and the unlock
// does not release this thread's update. The fix fences after taking the
// lock and before releasing it. Our kernel: a 16-byte complex sum, a lock
// table hashed by address, the warp-divergence-safe "done" loop.
// The reads of the critical section are inside the spin loop, on the branch
// taken when the swap returned 0, the loop's exit test: they come after the
// observation (model/Protocol.h, readsAfterObservation).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

struct Complex {
  double re, im;
};

__device__ __forceinline__ int* lock_for(int* locks, const void* p) {
  return locks + ((reinterpret_cast<uintptr_t>(p) >> 4) & 1023);
}

template <bool kFences>
__device__ __forceinline__ Complex atomic_add_locked(Complex* dest, Complex v, int* locks) {
  Complex old{};
  int* lock = lock_for(locks, dest);
  bool done = false;
  while (!done) {
    if (atomicCAS(lock, 0, 1) == 0) {  // expect: acquire-missing
      if (kFences) __threadfence();  // acquire the previous holder's update
      old = *dest;
      dest->re = old.re + v.re;
      dest->im = old.im + v.im;
      if (kFences) __threadfence();  // release this update
      atomicExch(lock, 0);  // expect: release-missing
      done = true;
    }
  }
  return old;
}

__global__ void complex_sum_unfenced(Complex* sums, const Complex* values, int* locks, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_add_locked<false>(&sums[i % 16], values[i], locks);
}
__global__ void complex_sum_fenced(Complex* sums, const Complex* values, int* locks, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_add_locked<true>(&sums[i % 16], values[i], locks);
}
