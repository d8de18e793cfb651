// RUN: %fenceline check --verify --arch sm_90a %s
// Fixed false positive (docs/real-code.md, "constant-rank arrive"): shape found in CUTLASS's
// Hopper pipelines compiled for a 1x1x1 cluster (the stream-K GEMM, the FMHA, the distributed
// GEMM). The pipeline computes its arrive target from the cluster shape, a compile-time
// constant; with one CTA per cluster the target folds to rank 0, which at run time is the CTA
// itself. The PTX holds `mapa addr, 0` + `mbarrier.arrive.shared::cluster` and no cluster
// directive (the cluster size is a launch attribute), so scope-too-narrow cannot tell this
// local arrive from one to CTA 0 of a larger cluster and reports it. Nothing is wrong here.
#include <cstdint>

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void arrive_at(const uint64_t* bar, uint32_t cta) {
  asm volatile(
      "{\n\t.reg .b32 remote;\n\t"
      "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}" ::"r"(shared_address(bar)), "r"(cta)
      : "memory");
}

__device__ __forceinline__ void wait_phase(const uint64_t* bar, uint32_t phase) {
  asm volatile(
      "{\n\t.reg .pred done;\n\t"
      "WAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(shared_address(bar)), "r"(phase)
      : "memory");
}

// A pipeline stage hand-off parameterized by the cluster shape, as a library would write it.
template <int kClusterCtas>
__device__ void consume_and_release(uint64_t* empty, const float* tile, float* out) {
  uint32_t target = 0;
  if constexpr (kClusterCtas > 1) {
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(target));
    target ^= 1;
  }
  out[threadIdx.x] = tile[threadIdx.x];
  if (threadIdx.x % 32 == 0) arrive_at(empty, target);
}

__global__ void one_cta_cluster_pipeline(const float* in, float* out) {
  __shared__ uint64_t empty;
  __shared__ float tile[128];
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(&empty)), "r"(4) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  tile[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  consume_and_release<1>(&empty, tile, out + blockIdx.x * 128);
  if (threadIdx.x == 0) wait_phase(&empty, 0);
}
