// A spin lock whose first attempt nvcc peels out of the loop (shape L of the held-out libraries,
// docs/real-code.md "Shape L in cuOpt's form"): `while (atomicCAS_system(lock, 0, 1) != 0)
// __nanosleep(100);` compiles to one `atom.global.sys.cas [lock], 0, 1` before the loop, a branch
// that skips the loop when it returned 0, and the same CAS again inside a rotated `nanosleep` loop.
// Each thread tightens a row's lower bound under one lock and its upper bound under the next one
// (two words of one lock array); the lock is taken with __threadfence() after the wait and
// released with __threadfence() and atomicExch (atom.exch at .gpu). The locks and the bounds are
// device memory that only this grid touches: .gpu covers every partner.
// The peeled CAS is the waiter's first poll, not a signal: it writes the taken value only where
// it read the free one, and a waiter leaves its loop on the unlock's store, never on another
// thread's taking CAS, so the CAS publishes nothing of the thread's earlier writes (the lower
// bound written before the second lock is published by the first lock's unlock). And a waiter's
// over-strong .sys scope is no evidence of a partner off the GPU. Silent in both tiers.
//
// The second kernel takes the lock once per entry in a loop; each trip first adds to the row's
// weight with a relaxed atomic outside the lock (no fence between it and the peeled CAS) and
// reads the weight in the critical section.
//
// Twins that still fire:
// - the critical section's writes published by a relaxed unlock with no fence
//   (release-missing at the unlock);
// - the same lock released with atomicExch_system (atom.sys.exch): the signalling side states a
//   partner off the GPU, and the .gpu fences are too narrow (scope-too-narrow at both);
// - a real .sys flag for a host poller (`atomicAdd_system(done, 1)`, a word no poll of the
//   kernel reads) right after a result written outside the lock: release-missing at the flag.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ void take(int* lock) {
  while (atomicCAS_system(lock, 0, 1) != 0) __nanosleep(100);
  __threadfence();
}

__device__ __forceinline__ void give(int* lock) {
  __threadfence();
  atomicExch(lock, 0);
}

__global__ void tighten_bounds_peeled_lock(int* locks, double* lower, double* upper,
                                           const double* __restrict__ candidates,
                                           const int* __restrict__ rows, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int row = rows[i];
  take(&locks[2 * row]);
  if (candidates[2 * i] > lower[row]) lower[row] = candidates[2 * i];
  give(&locks[2 * row]);
  take(&locks[2 * row + 1]);
  if (candidates[2 * i + 1] < upper[row]) upper[row] = candidates[2 * i + 1];
  give(&locks[2 * row + 1]);
}

__global__ void tighten_rows_peeled_lock_loop(int* locks, double* lower, double* weight,
                                              const double* __restrict__ candidates,
                                              const int* __restrict__ rows, int n, int per_thread) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < per_thread; ++k) {
    const int row = rows[i * per_thread + k];
    atomicAdd(&weight[row], candidates[i * per_thread + k]);
    take(&locks[row]);
    if (weight[row] > lower[row]) lower[row] = weight[row];
    give(&locks[row]);
  }
}

__global__ void tighten_bounds_relaxed_unlock(int* locks, double* lower, const double* __restrict__ candidates,
                                              const int* __restrict__ rows, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int row = rows[i];
  take(&locks[row]);
  if (candidates[i] > lower[row]) lower[row] = candidates[i];
  atomicExch(&locks[row], 0);  // expect: release-missing
}

__global__ void tighten_bounds_sys_unlock(int* locks, double* lower, const double* __restrict__ candidates,
                                          const int* __restrict__ rows, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int row = rows[i];
  while (atomicCAS_system(&locks[row], 0, 1) != 0) __nanosleep(100);
  __threadfence();  // expect: scope-too-narrow
  if (candidates[i] > lower[row]) lower[row] = candidates[i];
  __threadfence();  // expect: scope-too-narrow
  atomicExch_system(&locks[row], 0);
}

__global__ void tighten_bounds_then_tell_host(int* locks, double* lower, const double* __restrict__ candidates,
                                              const int* __restrict__ rows, int n, double* seen,
                                              unsigned* done) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int row = rows[i];
  take(&locks[row]);
  if (candidates[i] > lower[row]) lower[row] = candidates[i];
  give(&locks[row]);
  seen[i] = candidates[i];
  atomicAdd_system(done, 1u);  // expect: release-missing
}
