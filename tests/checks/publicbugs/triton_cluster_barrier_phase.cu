// Shape 5 (a phase word rewritten while others still read it), Triton:
// https://github.com/triton-lang/triton/pull/11334 (merged).
// Triton builds a cluster barrier from an mbarrier per CTA and a phase word
// in shared memory. The PR: "Without this, there was a race where a thread
// could run ahead and overwrite the phase before a different warp had
// finished reading it." Our kernel in that shape: every warp reads the phase
// word; thread 0 flips it for the next use and arrives on every CTA's
// mbarrier (arrival count = CTAs in the cluster); every thread waits for the
// phase it read. Nothing orders thread 0's flip after the other warps' reads
// of this use: a slow warp can read the flipped word and wait on the wrong
// parity. Fixed: a CTA barrier after the reads and before the flip (the
// fix's own mechanism is not in the record we found; this is one ordering
// that closes it; the next use's reads follow the flip through thread 0's
// arrive and their own wait).
// counter-reset: thread 0's flip follows the other warps' reads of the phase
// word with no barrier between (the next use's reads follow it through the
// mbarrier wait).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ uint32_t cluster_ctas() {
  uint32_t n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}

template <bool kSyncReads>
__device__ __forceinline__ void cluster_barrier(uint64_t* bar, volatile uint32_t* phase_word) {
  uint32_t phase = *phase_word;  // every warp reads the phase for this use
  if (kSyncReads) __syncthreads();  // no thread flips it before all have read it
  if (threadIdx.x == 0) {
    *phase_word = phase ^ 1u;  // expect: counter-reset
    for (uint32_t cta = 0; cta < cluster_ctas(); ++cta) {
      uint32_t remote;
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem(bar)), "r"(cta));
      asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
    }
  }
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)),
      "r"(phase)
      : "memory");
}

template <bool kSyncReads>
__device__ __forceinline__ void exchange(float* out, int uses) {
  __shared__ alignas(8) uint64_t bar;
  __shared__ uint32_t phase_word;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(&bar)), "r"(cluster_ctas()) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    phase_word = 0;
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  for (int u = 0; u < uses; ++u) {
    cluster_barrier<kSyncReads>(&bar, &phase_word);
    out[(blockIdx.x * uses + u) * blockDim.x + threadIdx.x] = float(u);
  }
}

__global__ void __cluster_dims__(2, 1, 1) phase_flip_races_readers(float* out, int uses) { exchange<false>(out, uses); }
__global__ void __cluster_dims__(2, 1, 1) phase_flip_after_reads(float* out, int uses) { exchange<true>(out, uses); }
