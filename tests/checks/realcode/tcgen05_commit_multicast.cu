// RUN: %fenceline check --verify --arch sm_100a %s
// Fixed false positive (docs/real-code.md, "tcgen05.commit"): shape found in CUTLASS's Blackwell code
// (cutlass::arch::umma_arrive_multicast_2x1SM, CuTe's tutorial 05_mma_tma_epi_sm100.cu): the MMA
// warp signals "MMAs done, A/B stages free" to the barriers of every CTA in a mask with
// `tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster`. That
// arrive is made by the tensor core when the committed tcgen05 operations complete; the
// instruction has no .sem or .scope to choose, so "use mbarrier.arrive.release.cluster" does
// not apply and scope-too-narrow should not report it.
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void __cluster_dims__(2, 1, 1) commit_to_pair(uint32_t* out) {
  __shared__ alignas(8) uint64_t mma_done;
  __shared__ uint32_t tmem_base;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&mma_done)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (threadIdx.x < 32)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(smem(&tmem_base))
                 : "memory");
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    uint16_t both = 0x3;
    asm volatile(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(
            smem(&mma_done)),
        "h"(both)
        : "memory");
  }
  asm volatile(
      "{\n\t.reg .pred done;\n\t"
      "WAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(&mma_done))
      : "memory");
  out[blockIdx.x * blockDim.x + threadIdx.x] = tmem_base;
  if (threadIdx.x < 32) {
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(tmem_base) : "memory");
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
