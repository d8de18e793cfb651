// Shared-memory mbarrier operations with their semantics and scope written out.
// PTX defaults an arrive to .release.cta and a wait to .acquire.cta; spelling them out keeps
// the contract visible in the source and in the PTX. All operate on a uint64_t in the
// executing block's shared memory (shared::cta addresses).
#pragma once

#include <cstdint>

namespace fenceline {

__device__ __forceinline__ uint32_t shared_address(const void* pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

// Initializes the barrier for `arrivals` arrivals per phase. One thread initializes; it then
// runs fence_mbarrier_init() and a block barrier before anyone else uses the mbarrier.
__device__ __forceinline__ void mbarrier_init(uint64_t* barrier, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)), "r"(arrivals)
               : "memory");
}

// Arrives once. Release at .cta: this thread's prior accesses (generic proxy only) happen
// before the accesses of any thread of the block that completes a wait on this phase.
__device__ __forceinline__ void mbarrier_arrive(uint64_t* barrier) {
  asm volatile("{ .reg .b64 state; mbarrier.arrive.release.cta.shared::cta.b64 state, [%0]; }" ::"r"(
                   shared_address(barrier))
               : "memory");
}

// Arrives once and adds `bytes` to the transactions the phase waits for (a bulk or tensor
// copy's complete_tx). Release at .cta, as mbarrier_arrive.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint64_t* barrier, uint32_t bytes) {
  asm volatile(
      "{ .reg .b64 state; mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 state, [%0], %1; }" ::"r"(
          shared_address(barrier)),
      "r"(bytes)
      : "memory");
}

// One test of whether the phase with the given parity has completed. Acquire at .cta: on
// success, this thread's later accesses follow the arrivals' released accesses and the
// completed copies' writes (complete_tx carries the async-to-generic proxy ordering).
__device__ __forceinline__ bool mbarrier_try_wait_parity(uint64_t* barrier, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(shared_address(barrier)), "r"(parity)
      : "memory");
  return done != 0;
}

// Waits until the phase with the given parity has completed (acquire at .cta, as above).
__device__ __forceinline__ void mbarrier_wait_parity(uint64_t* barrier, uint32_t parity) {
  while (!mbarrier_try_wait_parity(barrier, parity)) {
  }
}

}  // namespace fenceline
