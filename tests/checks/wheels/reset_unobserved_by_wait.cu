// Issue 34, NCCL's AlltoAll_LL (docs/real-code.md, "A count shown non-zero by a dominating
// branch"): as reset_count_nonzero_by_guard.cu, block 0's thread 0 waits for a count `n` that
// the kernel's entry test shows non-zero, bumps the epoch word and resets the counter to 0; but
// every thread first waits for a lock word, reached through a pointer joined from two halves,
// to read 0. That wait may be on any word, the counter included, and it leaves on 0, so the reset
// is still a store some wait may observe (counter-reset's "a reset, not a signal" does not hold).
// The count's own wait, whose word is decidedly the counter, never leaves on 0: it does not
// observe the reset, whose reader is then only the lock's wait, at a word the analysis cannot
// name: release-missing in the strict tier only. Main paired the reset with the count's wait
// and the epoch read after it (default tier).
// Broken twin: no entry test; with n == 0 the count's wait leaves on the reset's 0.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ unsigned* joined(unsigned lo, unsigned hi) {
  unsigned* p;
  asm("mov.b64 %0, {%1, %2};" : "=l"(p) : "r"(lo), "r"(hi));
  return p;
}
__device__ __forceinline__ unsigned wait_lock(const unsigned* lock) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(lock) : "memory");
  return v;
}
__device__ __forceinline__ void arrive(unsigned* counter) {
  asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counter) : "memory");
}
__device__ __forceinline__ unsigned wait_count(const unsigned* counter) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(counter) : "memory");
  return v;
}
__device__ __forceinline__ void reset(unsigned* counter) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(counter) : "memory");  // expect-strict: release-missing
}
// The twin's own copy (one line, one kernel's findings).
__device__ __forceinline__ void reset_twin(unsigned* counter) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(counter) : "memory");  // expect: release-missing
}

// Safe: the count's wait leaves only on a non-zero count; the lock's wait is on a word not named.
__global__ void reset_beside_lock(unsigned* counter, unsigned* epoch, unsigned long long shape, unsigned lockLo,
                                  unsigned lockHi) {
  const unsigned n = static_cast<unsigned>(shape >> 48);
  if (n == 0) return;
  if (threadIdx.x != 0) return;
  while (wait_lock(joined(lockLo, lockHi)) != 0) {}
  arrive(counter);
  if (blockIdx.x == 0) {
    while (wait_count(counter) != n) {}
    *epoch = *epoch + 1;
    reset(counter);
  }
}

// Broken twin: no entry test.
__global__ void reset_beside_lock_unguarded(unsigned* counter, unsigned* epoch, unsigned long long shape,
                                            unsigned lockLo, unsigned lockHi) {
  const unsigned n = static_cast<unsigned>(shape >> 48);
  if (threadIdx.x != 0) return;
  while (wait_lock(joined(lockLo, lockHi)) != 0) {}
  arrive(counter);
  if (blockIdx.x == 0) {
    while (wait_count(counter) != n) {}
    *epoch = *epoch + 1;
    reset_twin(counter);
  }
}
