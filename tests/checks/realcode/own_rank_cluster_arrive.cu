// RUN: %fenceline check --verify --arch sm_90a %s
// Shape found in CUTLASS's Hopper pipelines (tools/realcode, docs/real-code.md): every
// mbarrier arrive goes through the cluster form, `mapa` + `mbarrier.arrive.shared::cluster`,
// and a pipeline whose barrier is local passes the CTA's own rank (%cluster_ctarank). Such an
// arrive lands on the executing CTA's own barrier, so its default .release.cta is enough: it
// must not be reported as scope-too-narrow. The arrive toward the peer CTA (rank ^ 1) is.
// CUTLASS's Blackwell FMHA (corpus 7) reads the rank on two paths and selects one of the two
// reads (selp of two `mov %cluster_ctarank`): still the own rank.
#include <cstdint>

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

// The arrive helper as pipelines write it: the target CTA is a parameter.
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

__device__ __forceinline__ void init_barrier(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Clean: a block-local hand-off through the cluster-form arrive with our own rank.
__global__ void __cluster_dims__(2, 1, 1) own_rank_handoff(const float* in, float* out) {
  __shared__ uint64_t ready;
  __shared__ float tile[128];
  if (threadIdx.x == 0) init_barrier(&ready, 32);
  __syncthreads();
  if (threadIdx.x < 32) {
    tile[threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
    arrive_at(&ready, cluster_rank());
  } else if (threadIdx.x < 64) {
    wait_phase(&ready, 0);
    out[blockIdx.x * 32 + threadIdx.x - 32] = tile[threadIdx.x - 32];
  }
}

// Broken: the same arrive sent to the other CTA of the pair releases at .cta scope only.
__global__ void __cluster_dims__(2, 1, 1) peer_rank_handoff(const float* in, float* out) {
  __shared__ uint64_t ready;
  __shared__ float tile[128];
  if (threadIdx.x == 0) init_barrier(&ready, 32);
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x < 32) {
    tile[threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
    arrive_at(&ready, cluster_rank() ^ 1);  // expect: scope-too-narrow
  } else if (threadIdx.x < 64) {
    wait_phase(&ready, 0);
    out[blockIdx.x * 32 + threadIdx.x - 32] = tile[threadIdx.x - 32];
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Clean: the own rank read on two paths, one of them selected (selp of two equal reads).
__global__ void __cluster_dims__(2, 1, 1) selected_own_rank_handoff(const float* in, float* out, int lane) {
  __shared__ uint64_t ready;
  __shared__ float tile[128];
  if (threadIdx.x == 0) init_barrier(&ready, 32);
  __syncthreads();
  if (threadIdx.x < 32) {
    tile[threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
    const uint32_t first = cluster_rank(), second = cluster_rank();
    const uint32_t cta = threadIdx.x == lane ? first : second;
    arrive_at(&ready, cta);
  } else if (threadIdx.x < 64) {
    wait_phase(&ready, 0);
    out[blockIdx.x * 32 + threadIdx.x - 32] = tile[threadIdx.x - 32];
  }
}

// Broken: one of the two selected ranks is the peer's.
__global__ void __cluster_dims__(2, 1, 1) selected_peer_rank_handoff(const float* in, float* out, int lane) {
  __shared__ uint64_t ready;
  __shared__ float tile[128];
  if (threadIdx.x == 0) init_barrier(&ready, 32);
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x < 32) {
    tile[threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
    const uint32_t first = cluster_rank(), second = cluster_rank() ^ 1;
    const uint32_t cta = threadIdx.x == lane ? first : second;
    arrive_at(&ready, cta);  // expect: scope-too-narrow
  } else if (threadIdx.x < 64) {
    wait_phase(&ready, 0);
    out[blockIdx.x * 32 + threadIdx.x - 32] = tile[threadIdx.x - 32];
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
