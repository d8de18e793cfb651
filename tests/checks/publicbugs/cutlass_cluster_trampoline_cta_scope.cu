// A CTA-scoped mbarrier hand-off carries another CTA's shared-memory writes
// across the cluster, CUTLASS SM100 mixed TMA / cp.async 2-CTA GEMM:
// https://github.com/NVIDIA/cutlass/issues/3324 (closed; the fix it proposes:
// cluster-scoped release on the arrives and acquire on the waits), and the
// same rule in Triton's code generation:
// https://github.com/triton-lang/triton/pull/10922 (merged: emit
// .release.cluster / .acquire.cluster in mbarrier arrives and waits whenever
// an operation crosses CTAs).
// In the issue, the leader CTA's MMA reads both CTAs' shared memory. The
// non-leader CTA fills its half with cp.async, which signals only a local
// barrier, so a "trampoline" thread of the non-leader CTA waits on that local
// barrier and then arrives on the leader's barrier; the leader waits and
// reads. ClusterBarrier's arrive and wait carried the default semantics,
// .release.cta and .acquire.cta, which do not include the other CTA's threads:
// the leader could see the phase complete before the non-leader's writes are
// visible to it, and read stale data. Our kernel: a two-CTA cluster; in CTA 1
// warp 0 writes its tile with st.shared and arrives on a local "ready"
// barrier (every lane), warp 1's lane 0 (the trampoline) waits on "ready" and
// arrives on CTA 0's "full" barrier through mapa; CTA 0 waits on "full" and
// reads CTA 1's tile with ld.shared::cluster. Broken: the remote arrive and
// the leader's wait use the default (CTA) scope; fixed: .release.cluster and
// .acquire.cluster.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ uint32_t peer(uint32_t addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void wait_cta(uint32_t bar) {
  asm volatile("{\n\t.reg .pred p;\n\tW0:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t@!p bra W0;\n\t}" ::"r"(bar)
               : "memory");
}
__device__ __forceinline__ void wait_cluster(uint32_t bar) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tW1:\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n\t@!p bra W1;\n\t}" ::"r"(
          bar)
      : "memory");
}

template <bool kClusterScope>
__device__ __forceinline__ void trampoline(const float* src, float* out) {
  __shared__ alignas(16) float tile[32];
  __shared__ alignas(8) uint64_t ready, full;
  const uint32_t rank = cluster_rank();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" ::"r"(smem(&ready)));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (rank == 1) {
    if (warp == 0) {  // the non-leader's half of the operand
      tile[lane] = src[blockIdx.x / 2 * 32 + lane];
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&ready)) : "memory");
    } else if (warp == 1 && lane == 0) {  // the trampoline
      wait_cta(smem(&ready));
      if (kClusterScope) {
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer(smem(&full), 0))
                     : "memory");
      } else {
        asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(peer(smem(&full), 0)) : "memory");  // expect: scope-too-narrow
      }
    }
  } else if (warp == 0) {  // the leader reads the peer's half
    if (kClusterScope) wait_cluster(smem(&full)); else wait_cta(smem(&full));
    float v;
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(peer(smem(&tile[lane]), 1)) : "memory");
    out[blockIdx.x / 2 * 32 + lane] = v;
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__global__ void __cluster_dims__(2, 1, 1) trampoline_cta_scope(const float* src, float* out) {
  trampoline<false>(src, out);
}
__global__ void __cluster_dims__(2, 1, 1) trampoline_cluster_scope(const float* src, float* out) {
  trampoline<true>(src, out);
}
