// A distributed-shared-memory store into a peer CTA before that CTA has
// initialized the buffer, Meta's Triton fork TLX:
// https://github.com/facebookexperimental/triton/pull/2292 (closed; the fork
// lands changes through its own review): "Add entry barrier before remote
// SMEM store". Each CTA of a two-CTA cluster stored into its peer's shared
// buffer (remote rank = own rank ^ 1) at once, while nothing proved that the
// peer had entered and initialized its buffer; the peer's own initialization
// could then overwrite the value already stored into it (the PR delays CTA 1
// before its initialization and sees -1 where 142 was stored). The fix adds a
// cluster barrier between the initialization and the remote stores, besides
// the existing one between the remote stores and the local loads. Our
// kernel: each CTA writes -1 into its recv slots, stores its value into the
// peer's recv slot through mapa + st.shared::cluster, passes a cluster
// barrier, and reads its own recv slot. Broken: no cluster barrier between
// the initialization and the remote store; fixed: one there.
//
// XFAIL: *
// No check asks for it: a local write of shared memory that another CTA's
// remote store (the kernel's other CTAs run the same code) may overwrite, with
// no cluster barrier between the write and the remote store on every path
// (rule needed: shape 19 in README.md, the entry counterpart of cluster-exit).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

template <bool kEntryBarrier>
__device__ __forceinline__ void exchange(const float* x, float* y) {
  __shared__ float recv[32];
  const uint32_t rank = cluster_rank();
  recv[threadIdx.x] = -1.f;  // expect: cluster-entry
  if (kEntryBarrier) cluster_sync();
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem(&recv[threadIdx.x])), "r"(rank ^ 1));
  asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(remote), "f"(x[blockIdx.x * 32 + threadIdx.x]) : "memory");
  cluster_sync();
  y[blockIdx.x * 32 + threadIdx.x] = recv[threadIdx.x];
}

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(32) exchange_without_entry_barrier(const float* x, float* y) {
  exchange<false>(x, y);
}
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(32) exchange_after_entry_barrier(const float* x, float* y) {
  exchange<true>(x, y);
}
