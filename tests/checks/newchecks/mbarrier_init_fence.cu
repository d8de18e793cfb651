// mbarrier-init-fence: one thread initializes an mbarrier; a bulk copy (async
// proxy) completes on it, or a thread of another CTA of the cluster arrives on
// it. Broken: nothing but __syncthreads() / a relaxed cluster barrier after
// the init. Fixed: fence.mbarrier_init.release.cluster (or, for a same-CTA
// async use, fence.proxy.async.shared::cta) before the barrier that publishes
// it. Three shapes: inline asm, cuda::ptx, CUTLASS-style ClusterBarrier
// wrappers of our own; and a clean barrier only generic threads use.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void wait_parity(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(bar), "r"(parity)
      : "memory");
}

// 1. Inline asm: a 4 KB bulk copy global -> shared completes on the barrier.
template <int kFence>  // 0: none, 1: fence.mbarrier_init, 2: fence.proxy.async.shared::cta
__device__ __forceinline__ float bulk_load(const float* src) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full)) : "memory");
    if (kFence == 1) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    if (kFence == 2) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" ::"r"(smem(&full)) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 4096, [%2];" ::"r"(
                     smem(tile)),
                 "l"(src), "r"(smem(&full))
                 : "memory");
  }
  wait_parity(smem(&full), 0);
  return tile[threadIdx.x];
}

__global__ void asm_init_no_fence(const float* src, float* out) {
  out[threadIdx.x] = bulk_load<0>(src);  // expect-strict: mbarrier-init-fence
}
__global__ void asm_init_fenced(const float* src, float* out) { out[threadIdx.x] = bulk_load<1>(src); }
__global__ void asm_init_proxy_fenced(const float* src, float* out) { out[threadIdx.x] = bulk_load<2>(src); }

// 2. cuda::ptx: the same hand-off through libcu++'s PTX wrappers.
template <bool kFence>
__device__ __forceinline__ float ptx_bulk_load(const float* src) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&full, 1);
    if (kFence) cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full,
                                         4096);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, tile, src, 4096, &full);
  }
  wait_parity(smem(&full), 0);
  return tile[threadIdx.x];
}

__global__ void ptx_init_no_fence(const float* src, float* out) {
  out[threadIdx.x] = ptx_bulk_load<false>(src);  // expect-strict: mbarrier-init-fence
}
__global__ void ptx_init_fenced(const float* src, float* out) { out[threadIdx.x] = ptx_bulk_load<true>(src); }

// 3. CUTLASS-style wrappers: CTA 1 of a 2-CTA cluster arrives on CTA 0's
// barrier after a relaxed cluster barrier (cluster_arrive_relaxed + wait).
struct ClusterBarrier {
  uint64_t word;
  __device__ void init(uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(&word)), "r"(count) : "memory");
  }
  __device__ void arrive(uint32_t cta) {
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem(&word)), "r"(cta));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
  }
  __device__ void wait(uint32_t parity) {
    asm volatile(
        "{\n\t.reg .pred done;\n\tWAIT:\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n\t"
        "@!done bra WAIT;\n\t}" ::"r"(smem(&word)), "r"(parity)
        : "memory");
  }
};
__device__ __forceinline__ void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
__device__ __forceinline__ void cluster_arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

template <bool kFence>
__device__ __forceinline__ void remote_arrive(float* out) {
  __shared__ ClusterBarrier bar;
  if (threadIdx.x == 0) {
    bar.init(1);
    if (kFence) fence_barrier_init();
  }
  cluster_arrive_relaxed();
  cluster_wait();
  if (cluster_rank() == 1 && threadIdx.x == 0) bar.arrive(0);
  if (cluster_rank() == 0) {
    bar.wait(0);
    out[threadIdx.x] = 1.0f;
  }
  cluster_arrive_relaxed();
  cluster_wait();
}

__global__ void __cluster_dims__(2, 1, 1) cutlass_remote_no_fence(float* out) {
  remote_arrive<false>(out);  // expect: mbarrier-init-fence
}
__global__ void __cluster_dims__(2, 1, 1) cutlass_remote_fenced(float* out) { remote_arrive<true>(out); }

// 4. Clean without a fence: only the CTA's own generic threads use the barrier.
__global__ void generic_only(float* out) {
  __shared__ alignas(8) uint64_t bar;
  __shared__ float data[128];
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" ::"r"(smem(&bar)) : "memory");
  __syncthreads();
  data[threadIdx.x] = float(threadIdx.x);
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&bar)) : "memory");
  wait_parity(smem(&bar), 0);
  out[threadIdx.x] = data[(threadIdx.x + 1) % 128];
}
