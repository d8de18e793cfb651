// Device helpers every experiment shares: the %globaltimer watchdog that keeps a
// spin loop from hanging a run, a delay the compiler cannot fold, and the
// mbarrier operations of the stage rings. None of them is a hazard: each one
// is correct by the rules of shared/ordering-rules.md, so `fenceline check`
// has nothing to say about them; the hazards live in the experiment files,
// on the lines marked `// expect:`.
#pragma once

#include <cstdint>

namespace lab {

// Nanoseconds from the GPU's global timer (not folded, not reordered).
__device__ __forceinline__ uint64_t globalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The deadline a spin loop gives up at: now + timeout.
__device__ __forceinline__ uint64_t deadlineAfter(uint64_t timeoutNs) {
  return globalTimerNs() + timeoutNs;
}

__device__ __forceinline__ bool pastDeadline(uint64_t deadline) {
  return globalTimerNs() > deadline;
}

// Busy-waits `ns` nanoseconds on %globaltimer: a delay no compiler can fold.
__device__ __forceinline__ void delayNs(uint64_t ns) {
  const uint64_t end = globalTimerNs() + ns;
  while (globalTimerNs() < end) {
  }
}

// Records that a watchdog fired (the host reports the variant as "timeout").
__device__ __forceinline__ void noteTimeout(unsigned* timeouts) { atomicAdd(timeouts, 1u); }

// Shared-memory address of a generic pointer into shared memory.
__device__ __forceinline__ uint32_t sharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbarrierInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// Makes barrier initialization visible to other threads and to the async proxy.
__device__ __forceinline__ void fenceBarrierInit() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ bool mbarrierTryWait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

// Waits (acquire, CTA scope) for the phase of `parity` to complete; false when
// the deadline passes first.
__device__ __forceinline__ bool mbarrierWait(uint32_t bar, uint32_t parity, uint64_t deadline) {
  while (!mbarrierTryWait(bar, parity))
    if (pastDeadline(deadline)) return false;
  return true;
}

__device__ __forceinline__ void mbarrierArriveExpectTx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ uint32_t loadShared(uint32_t addr) {
  uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr));
  return v;
}

__device__ __forceinline__ void storeShared(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned loadAcquireGpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ unsigned loadRelaxedGpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void storeRelaxedGpu(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ void storeReleaseGpu(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

}  // namespace lab
