// Ampere-style (non-bulk) cp.async helpers for the proxy tests, as CUTLASS's
// SM80_CP_ASYNC_CACHEGLOBAL and cp_async_fence / cp_async_wait emit them.
// cp.async writes shared memory through the generic proxy; its writes take
// effect when the copy completes (the wait, or the mbarrier phase that
// cp.async.mbarrier.arrive signals).
#pragma once

#include <cstdint>

#include "async_copy.cuh"

namespace proxy_test {

__device__ __forceinline__ void cp_async_16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(dst)), "l"(src) : "memory");
}

__device__ __forceinline__ void cp_async_8(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(smem(dst)), "l"(src) : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// The barrier tracks this thread's prior cp.async copies (no pending-count increment).
__device__ __forceinline__ void cp_async_arrive_noinc(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem(bar)) : "memory");
}

}  // namespace proxy_test
