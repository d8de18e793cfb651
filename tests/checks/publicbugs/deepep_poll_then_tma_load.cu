// Shape 4 (an acquire followed by bulk loads), DeepEP low-latency combine:
// https://github.com/deepseek-ai/DeepEP/issues/621 (report),
// https://github.com/deepseek-ai/DeepEP/pull/632 (proposed fix, closed
// unmerged), https://github.com/deepseek-ai/DeepEP/pull/642 (the merged fix,
// for the companion race; see below).
// The receiving rank polls a flag that the sending rank raises after writing
// token data into the receiver's buffer, then loads that data into shared
// memory with TMA. #632 reports that the poll is a generic-proxy access and
// the TMA load an async-proxy one, so without a fence.proxy.async the TMA
// load may see stale data, and adds the fence after the poll; the
// maintainers answered that the code "does not strictly conform to the CUDA
// memory model" but relies on experiments and assumptions about TMA, and
// merged #642 instead (a shared-memory proxy fence between the consumer's
// shared loads and the next TMA load: proxy-war, not this shape). The
// global-memory hand-off stays as reported. Our kernel: a rank-indexed
// table of peer buffers, a release store at system scope by the sender, an
// acquire poll by the receiver, then a bulk copy global -> shared.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

struct Ranks {
  float* recv[8];     // each rank's receive buffer, mapped on every rank
  unsigned* flag[8];  // each rank's arrival flag
};

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

template <bool kProxyFence>
__device__ __forceinline__ void combine(Ranks r, int rank, int peer, const float* tokens, float* out) {
  __shared__ alignas(128) float stage[256];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n\tfence.mbarrier_init.release.cluster;" ::"r"(smem(&full))
                 : "memory");
  }
  __syncthreads();
  // Send: write our tokens into the peer's buffer, then raise its flag.
  r.recv[peer][rank * 256 + threadIdx.x] = tokens[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) asm volatile("st.release.sys.global.u32 [%0], 1;" ::"l"(r.flag[peer] + rank) : "memory");
  // Receive: wait for the peer's flag, then bulk-load what it wrote.
  if (threadIdx.x == 0) {
    unsigned seen;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(seen) : "l"(r.flag[rank] + peer) : "memory");
    } while (seen == 0);
    if (kProxyFence) asm volatile("fence.proxy.async.global;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(smem(&full)) : "memory");
    const float* src = r.recv[rank] + peer * 256;
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::"r"(smem(stage)), "l"(src), "r"(smem(&full)) : "memory");  // expect: proxy-global
  }
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n\t@!done bra WAIT;\n\t}" ::
          "r"(smem(&full))
      : "memory");
  out[threadIdx.x] = stage[threadIdx.x] * 2.0f;
}

__global__ void combine_poll_then_tma(Ranks r, int rank, int peer, const float* tokens, float* out) {
  combine<false>(r, rank, peer, tokens, out);
}
__global__ void combine_poll_fence_tma(Ranks r, int rank, int peer, const float* tokens, float* out) {
  combine<true>(r, rank, peer, tokens, out);
}
