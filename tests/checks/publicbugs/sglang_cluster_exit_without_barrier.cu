// A CTA of a cluster exits while its peer still reaches into its shared
// memory, SGLang CuTe DSL BF16 GEMM with 2-CTA clusters:
// https://github.com/sgl-project/sglang/issues/32907 (root cause),
// https://github.com/sgl-project/sglang/pull/32954 (fix, merged).
// The kernel synchronized its cluster only at entry. Its CTAs keep reaching
// into each other's shared memory until the end (mbarrier arrives redirected
// to the peer, a multicast tcgen05.commit, a cluster-wide dealloc), so one CTA
// could retire while the other still had distributed-shared-memory operations
// aimed at it; under PDL and CUDA graphs the straggler faulted on the vacated
// peer ("CTA Not Present"). The fix adds a trailing cluster barrier before the
// kernel exits. Our kernel: a two-CTA cluster in which CTA 1 produces chunks
// into its own shared memory and CTA 0 reads each chunk through the cluster
// window and hands the buffer back with an arrive on CTA 1's mbarrier; CTA 1
// waits for that arrive only before it overwrites the buffer, so after its
// last chunk it exits while CTA 0 still reads the buffer and arrives on its
// barrier. The fixed twin ends with barrier.cluster.arrive/wait in both CTAs.
//
// cluster-exit (session 27, branch recall27) reports the consumer's answer, the remote arrive
// on the producer's "empty" barrier: the producer's path from its last hand-off (its remote
// arrive on the consumer's "full" barrier) to the exit passes no wait on "empty" and no cluster
// barrier. Strict tier: whether the consumer answers the producer's last hand-off depends on the
// two loops' trip counts, which the analysis does not compare (`answer-count`); the 2-CTA
// cluster decides which CTA the arrive aims at. The producer's own remote arrive is no answer
// (its first iteration arrives without a wait) and is not asked. The fixed twin's trailing
// cluster barrier follows both arrives: silent.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
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
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ bool try_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
               "selp.u32 %0, 1, 0, p;\n\t}"
               : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  return done != 0;
}

template <bool kTrailingBarrier>
__device__ __forceinline__ void pair_pipeline(const float* src, float* out, int chunks) {
  __shared__ alignas(16) float buf[32];
  __shared__ alignas(8) uint64_t full, empty;
  const uint32_t rank = cluster_rank();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full)));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&empty)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();  // the only cluster barrier before the fix
  if (threadIdx.x >= 32) return;
  const uint32_t lane = threadIdx.x;
  if (rank == 1) {  // producer: its buffer, its empty barrier
    for (int i = 0; i < chunks; ++i) {
      if (i > 0) {
        while (!try_wait(smem(&empty), (i - 1) & 1)) {
        }
      }
      buf[lane] = src[(blockIdx.x / 2 * chunks + i) * 32 + lane];
      __syncwarp();
      if (lane == 0) {
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer(smem(&full), 0))
                     : "memory");
      }
    }
  } else {  // consumer: reads the producer's buffer, hands it back
    float acc = 0.f;
    for (int i = 0; i < chunks; ++i) {
      while (!try_wait(smem(&full), i & 1)) {
      }
      float v;
      asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(peer(smem(&buf[lane]), 1)) : "memory");
      acc += v;
      __syncwarp();
      if (lane == 0) {
        const uint32_t peer_empty = peer(smem(&empty), 1);
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer_empty) : "memory");  // expect-strict: cluster-exit
      }
    }
    out[blockIdx.x / 2 * 32 + lane] = acc;
  }
  if (kTrailingBarrier) {
    __syncwarp();
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
  }
}

__global__ void __cluster_dims__(2, 1, 1) pair_exits_after_entry_sync_only(const float* src, float* out, int chunks) {
  pair_pipeline<false>(src, out, chunks);
}
__global__ void __cluster_dims__(2, 1, 1) pair_exits_after_trailing_cluster_barrier(const float* src, float* out,
                                                                                    int chunks) {
  pair_pipeline<true>(src, out, chunks);
}
