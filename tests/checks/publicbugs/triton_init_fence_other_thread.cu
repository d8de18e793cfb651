// Shape 8 (the mbarrier init fence), Triton:
// https://github.com/triton-lang/triton/pull/11498 (merged): "Use elect for
// init fence as mbarrier.init also uses elect and the fence has to be
// emitted by the same thread as the init!" Before the fix the barrier was
// initialized by the elect.sync leader while the fence.mbarrier_init was
// emitted under another predicate, by another thread; the fence orders the
// executing thread's own init only. After the fix the elected thread
// initializes and fences. Our kernel: a two-CTA cluster; the barrier is
// initialized by the elect.sync leader of warp 1 and completed by a
// multicast bulk copy from CTA 0 (the async proxy, another CTA); broken, the
// fence runs on thread 0; fixed, on the initializing thread.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ bool elect_one() {
  uint32_t elected;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(elected));
  return elected != 0;
}
__device__ __forceinline__ uint32_t cta_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

template <bool kFenceByInitializer>
__device__ __forceinline__ void multicast_tile(const float* src, float* out) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t full;
  const unsigned warp = threadIdx.x / 32;
  if (warp == 1 && elect_one()) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full)) : "memory");  // expect: mbarrier-init-fence
    if (kFenceByInitializer) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (!kFenceByInitializer && threadIdx.x == 0) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" ::"r"(smem(&full)) : "memory");
    if (cta_rank() == 0) {
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], 4096, "
          "[%2], %3;" ::"r"(smem(tile)),
          "l"(src), "r"(smem(&full)), "h"(uint16_t(3))
          : "memory");
    }
  }
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n\t@!done bra WAIT;\n\t}" ::
          "r"(smem(&full))
      : "memory");
  out[(cta_rank() * blockDim.x + threadIdx.x)] = tile[threadIdx.x];
  asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}

__global__ void __cluster_dims__(2, 1, 1) init_fenced_by_thread0(const float* src, float* out) {
  multicast_tile<false>(src, out);
}
__global__ void __cluster_dims__(2, 1, 1) init_fenced_by_initializer(const float* src, float* out) {
  multicast_tile<true>(src, out);
}
