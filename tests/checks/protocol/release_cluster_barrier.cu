// release-missing, cluster barriers: shared memory handed to the other CTAs
// of a cluster by barrier.cluster.arrive + barrier.cluster.wait is published
// only by an arrive with release semantics (the default) or a release fence
// at .cluster scope or wider before a relaxed one. Each broken kernel below
// has its fixed twin; the twins and the CTA-local and unrelated-object forms
// stay silent.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ uint32_t rank_in_cluster() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint32_t in_rank(const void* p, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem(p)), "r"(rank));
  return r;
}
__device__ __forceinline__ float ld_cluster(uint32_t addr) {
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ void st_cluster(uint32_t addr, float v) {
  asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(addr), "f"(v) : "memory");
}
__device__ __forceinline__ void arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void arrive_release() { asm volatile("barrier.cluster.arrive.aligned;" ::: "memory"); }
__device__ __forceinline__ void wait_cluster() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }

// 1. Local writes, remote reads: rank 0 publishes, every CTA reads rank 0's copy.
__global__ void __cluster_dims__(2, 1, 1) publish_relaxed(const float* in, float* out) {
  __shared__ float value[32];
  if (rank_in_cluster() == 0 && threadIdx.x < 32) value[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");  // expect: release-missing
  wait_cluster();
  out[blockIdx.x * blockDim.x + threadIdx.x] = ld_cluster(in_rank(&value[threadIdx.x % 32], 0));
  arrive_release();
  wait_cluster();
}
__global__ void __cluster_dims__(2, 1, 1) publish_release(const float* in, float* out) {
  __shared__ float value[32];
  if (rank_in_cluster() == 0 && threadIdx.x < 32) value[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  arrive_release();
  wait_cluster();
  out[blockIdx.x * blockDim.x + threadIdx.x] = ld_cluster(in_rank(&value[threadIdx.x % 32], 0));
  arrive_release();
  wait_cluster();
}
// A relaxed arrive after a cluster-scope fence by every writer releases as well.
__global__ void __cluster_dims__(2, 1, 1) publish_fence_then_relaxed(const float* in, float* out) {
  __shared__ float value[32];
  if (rank_in_cluster() == 0 && threadIdx.x < 32) value[threadIdx.x] = in[threadIdx.x];
  asm volatile("fence.acq_rel.cluster;" ::: "memory");
  arrive_relaxed();
  wait_cluster();
  out[blockIdx.x * blockDim.x + threadIdx.x] = ld_cluster(in_rank(&value[threadIdx.x % 32], 0));
  arrive_release();
  wait_cluster();
}
// A release arrive and wait between the relaxed barrier and the read publish the writes too.
__global__ void __cluster_dims__(2, 1, 1) publish_relaxed_then_release(const float* in, float* out) {
  __shared__ float value[32];
  if (rank_in_cluster() == 0 && threadIdx.x < 32) value[threadIdx.x] = in[threadIdx.x];
  arrive_relaxed();
  wait_cluster();
  arrive_release();
  wait_cluster();
  out[blockIdx.x * blockDim.x + threadIdx.x] = ld_cluster(in_rank(&value[threadIdx.x % 32], 0));
  arrive_release();
  wait_cluster();
}

// 2. Remote writes, local reads: every CTA writes its partial into rank 0's
// slots, rank 0 reads its own slots after the barrier.
__global__ void __cluster_dims__(4, 1, 1) gather_relaxed(const float* in, float* out) {
  __shared__ float partial[4];
  const uint32_t rank = rank_in_cluster();
  if (threadIdx.x == 0) st_cluster(in_rank(&partial[rank], 0), in[blockIdx.x]);
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");  // expect: release-missing
  wait_cluster();
  if (rank == 0 && threadIdx.x == 0) out[blockIdx.x] = partial[0] + partial[1] + partial[2] + partial[3];
  arrive_release();
  wait_cluster();
}
__global__ void __cluster_dims__(4, 1, 1) gather_release(const float* in, float* out) {
  __shared__ float partial[4];
  const uint32_t rank = rank_in_cluster();
  if (threadIdx.x == 0) st_cluster(in_rank(&partial[rank], 0), in[blockIdx.x]);
  arrive_release();
  wait_cluster();
  if (rank == 0 && threadIdx.x == 0) out[blockIdx.x] = partial[0] + partial[1] + partial[2] + partial[3];
  arrive_release();
  wait_cluster();
}

// 3. Silent: the relaxed barrier hands nothing between CTAs (each CTA reads
// its own writes after a __syncthreads(); CUTLASS's start-up rendezvous), and
// a relaxed barrier between a local write and a remote read of another object.
__global__ void __cluster_dims__(2, 1, 1) relaxed_rendezvous_local_data(const float* in, float* out) {
  __shared__ float mine[32];
  if (threadIdx.x < 32) mine[threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
  __syncthreads();
  arrive_relaxed();
  wait_cluster();
  out[blockIdx.x * blockDim.x + threadIdx.x] = mine[threadIdx.x % 32];
}
__global__ void __cluster_dims__(2, 1, 1) relaxed_other_object(const float* in, float* out) {
  __shared__ float scratch[32];
  __shared__ float table[32];
  if (threadIdx.x < 32) scratch[threadIdx.x] = in[threadIdx.x];
  if (rank_in_cluster() == 0 && threadIdx.x < 32) table[threadIdx.x] = 1.f;
  asm volatile("fence.acq_rel.cluster;" ::: "memory");
  arrive_release();
  wait_cluster();
  out[threadIdx.x] = scratch[threadIdx.x % 32];
  arrive_relaxed();
  wait_cluster();
  out[blockDim.x + threadIdx.x] = ld_cluster(in_rank(&table[threadIdx.x % 32], 0));
  arrive_release();
  wait_cluster();
}
