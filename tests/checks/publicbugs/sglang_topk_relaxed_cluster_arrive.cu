// A relaxed cluster barrier used to publish shared-memory writes to the
// other CTAs of the cluster, SGLang DSA top-k v2 (cluster rework):
// https://github.com/sgl-project/sglang/pull/38829 (merged; fixed in review).
// The kernel splits one long row over the CTAs of a cluster. CTA rank 0
// computes a threshold bin and writes the bin's bounds into its own shared
// memory; the other CTAs read them through distributed shared memory after a
// cluster barrier. The barrier was `barrier.cluster.arrive.relaxed` +
// `barrier.cluster.wait` (commented "zero write to DSMEM, so relaxed is strong
// enough here"). The review: "bar.sync is CTA-scoped and a relaxed cluster
// arrive does not order rank 0's shared-memory writes before the peers'
// acquire wait"; the author agreed (for this barrier and for the one after the
// histogram's zero-fill) and made rank 0 arrive with release. Our kernel: rank
// 0's thread 0 writes two bounds, a __syncthreads(), the cluster barrier, and
// every CTA reads the bounds from rank 0 with ld.shared::cluster.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ float ld_rank0(const float* p) {
  uint32_t remote;
  float v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(smem(p)));
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
  return v;
}

template <bool kRelease>
__device__ __forceinline__ void threshold_pass(const float* scores, const int* bins, int* out, int len) {
  __shared__ float bounds[2];  // v_lo, v_hi, written by rank 0
  const uint32_t rank = cluster_rank();
  if (rank == 0 && threadIdx.x == 0) {
    const int bin = bins[blockIdx.x / 2];
    bounds[0] = static_cast<float>(bin);
    bounds[1] = static_cast<float>(bin + 1);
  }
  __syncthreads();
  if (kRelease)
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  else
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");  // expect: release-missing
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  const float lo = ld_rank0(&bounds[0]), hi = ld_rank0(&bounds[1]);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < len) out[i] = scores[i] >= lo && scores[i] < hi;
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__global__ void __cluster_dims__(2, 1, 1) topk_relaxed_cluster_arrive(const float* scores, const int* bins, int* out,
                                                                      int len) {
  threshold_pass<false>(scores, bins, out, len);
}
__global__ void __cluster_dims__(2, 1, 1) topk_release_cluster_arrive(const float* scores, const int* bins, int* out,
                                                                      int len) {
  threshold_pass<true>(scores, bins, out, len);
}
