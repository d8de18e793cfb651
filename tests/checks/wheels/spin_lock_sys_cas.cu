// A spin lock taken with a .sys compare-and-swap and released at .gpu (the
// shape of a per-segment lock in a graph update): thread 0 of each block takes
// the lock of the segment it merges into with atomicCAS_system(lock, 0, 1)
// (atom.sys.cas), fences with __threadfence(), updates the segment, fences
// again and releases with atomicExch(lock, 0) (atom.exch at .gpu). The lock
// words and the segments are device memory that only blocks of this grid
// touch: .gpu covers every partner. The taking CAS is the waiter's poll (a
// read-modify-write whose returned value decides the loop's exit), not a
// signal: a waiter's over-strong scope is no evidence that a thread off the
// GPU raises the word (docs/checks/scope-too-narrow.md). Silent in both tiers.
//
// The broken twin releases with atomicExch_system (atom.sys.exch): the
// signalling side itself states a partner off the GPU, and the .gpu fences
// order nothing for it. scope-too-narrow at both fences (the acquire after the
// wait, the release before the exchange).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__global__ void merge_under_sys_cas_lock(int* locks, float* segments, const float* __restrict__ updates, int width) {
  if (threadIdx.x != 0) return;
  const int segment = (blockIdx.x * 7 + 3) % gridDim.x;
  while (atomicCAS_system(&locks[segment], 0, 1) != 0) {
  }
  __threadfence();
  for (int i = 0; i < width; ++i) segments[segment * width + i] += updates[blockIdx.x * width + i];
  __threadfence();
  atomicExch(&locks[segment], 0);
}

__global__ void merge_under_sys_exch_release(int* locks, float* segments, const float* __restrict__ updates,
                                             int width) {
  if (threadIdx.x != 0) return;
  const int segment = (blockIdx.x * 7 + 3) % gridDim.x;
  while (atomicCAS_system(&locks[segment], 0, 1) != 0) {
  }
  __threadfence();  // expect: scope-too-narrow
  for (int i = 0; i < width; ++i) segments[segment * width + i] += updates[blockIdx.x * width + i];
  __threadfence();  // expect: scope-too-narrow
  atomicExch_system(&locks[segment], 0);
}
