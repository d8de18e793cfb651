// Issue 34, NCCL's AlltoAll_LL (docs/real-code.md, "A count shown non-zero by a dominating
// branch"): blocks arrive on a counter; block 0's thread 0 waits until all `n` have arrived,
// bumps the launch's epoch word, and resets the counter to 0 for the next launch. `n` is a 16-bit
// field of a parameter (`shape >> 48`), so the value analysis bounds it to [0, 65535], which
// includes 0; but the kernel returns at its entry when `n == 0`, so the waiter leaves only on a
// non-zero count and the reset satisfies no waiter: it is no signal. Main took the reset for a
// signal after the epoch write (release-missing, default tier).
// Broken twin: the same kernel without the entry test, and block 1 also waits and reads the epoch.
// A launch with `n == 0` has block 1 leave on the reset's 0, and the reset follows block 0's epoch
// write with no release: release-missing. (Session 28, eig28: block 1 is the reader because block
// 0's own read of the epoch after its own wait is that thread's read-modify-write, which no other
// block makes: model/PinnedBlock.h; the twin read that way before.)
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ void arrive(unsigned* counter) {
  asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counter) : "memory");
}
__device__ __forceinline__ unsigned wait_count(const unsigned* counter) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(counter) : "memory");
  return v;
}
__device__ __forceinline__ void reset(unsigned* counter) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(counter) : "memory");
}
// The twin's own copy (one line, one kernel's findings).
__device__ __forceinline__ void reset_twin(unsigned* counter) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(counter) : "memory");  // expect: release-missing
}

// Safe: the count is non-zero wherever the waiter compares with it.
__global__ void arrive_and_reset(unsigned* counter, unsigned* epoch, unsigned long long shape) {
  const unsigned n = static_cast<unsigned>(shape >> 48);
  if (n == 0) return;
  if (threadIdx.x != 0) return;
  arrive(counter);
  if (blockIdx.x == 0) {
    while (wait_count(counter) != n) {}
    *epoch = *epoch + 1;
    reset(counter);
  }
}

// Broken twin: no entry test; with n == 0 the waiter leaves on the reset.
__global__ void arrive_and_reset_unguarded(unsigned* counter, unsigned* epoch, unsigned* seen,
                                           unsigned long long shape) {
  const unsigned n = static_cast<unsigned>(shape >> 48);
  if (threadIdx.x != 0) return;
  arrive(counter);
  if (blockIdx.x == 0) {
    while (wait_count(counter) != n) {}
    *epoch = *epoch + 1;
    reset_twin(counter);
  } else if (blockIdx.x == 1) {
    while (wait_count(counter) != n) {}
    *seen = *epoch;
  }
}
