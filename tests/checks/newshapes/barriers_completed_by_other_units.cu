// Issue 30, shape 8: mbarriers completed by clusterlaunchcontrol.try_cancel
// or by tcgen05.commit need the same init fence as those completed by bulk
// copies (sm_100a). Across a cluster (a multicast try_cancel or commit
// completing on every CTA's barrier) the fence.mbarrier_init.release.cluster
// plus a cluster barrier is required: a warning. Within one CTA the field
// disagrees: strict tier (../shared/ordering-rules.md, "mbarrier init").
// Shapes: inline asm for clusterlaunchcontrol, cuda::ptx for tcgen05.commit,
// a persistent scheduler loop; the fixed forms fence after the init.
// try_cancel is classified as an async-proxy write of its response that
// completes the mbarrier (model/MemoryEffect.cpp), .multicast::cluster::all
// as a multicast.
// RUN: %fenceline check --arch sm_100a --verify %s
// RUN: %fenceline check --arch sm_100a --strict --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t@!done bra "
      "WAIT;\n\t}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ uint32_t query_first_cta(const uint4* response, uint32_t& canceled) {
  uint32_t next;
  asm volatile(
      "{\n\t.reg .b128 r;\n\t.reg .pred p;\n\tld.shared.b128 r, [%2];\n\t"
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r;\n\tselp.u32 %0, 1, 0, p;\n\t"
      "@p clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %1, r;\n\t}"
      : "=r"(canceled), "=r"(next)
      : "r"(smem(response))
      : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  return next;
}

// 1. Multicast try_cancel: CTA 0's scheduler thread asks for the next cluster
// and the response completes on the barrier of both CTAs (a warning).
template <bool kFence>
__device__ __forceinline__ void clc_multicast(float* out) {
  __shared__ alignas(16) uint4 response;
  __shared__ alignas(8) uint64_t resp_full;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&resp_full)) : "memory");  // expect: mbarrier-init-fence
    if (kFence) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
  uint32_t tile = blockIdx.x;
  for (uint32_t trip = 0;; ++trip) {
    out[tile * blockDim.x + threadIdx.x] = float(tile);
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" ::"r"(smem(&resp_full)) : "memory");
      if (rank == 0)
        asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [%0], [%1];" ::"r"(smem(&response)), "r"(smem(&resp_full)) : "memory");
    }
    wait(&resp_full, trip & 1);
    uint32_t canceled;
    const uint32_t next = query_first_cta(&response, canceled);
    asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
    if (!canceled) break;
    tile = next + rank;
  }
}
__global__ void __cluster_dims__(2, 1, 1) clc_multicast_barrier_unfenced(float* out) { clc_multicast<false>(out); }
__global__ void __cluster_dims__(2, 1, 1) clc_multicast_barrier_fenced(float* out) { clc_multicast<true>(out); }

// 2. CTA-local try_cancel (no cluster): strict tier.
template <bool kFence>
__device__ __forceinline__ void clc_local(float* out) {
  __shared__ alignas(16) uint4 response;
  __shared__ alignas(8) uint64_t resp_full;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&resp_full)) : "memory");  // expect-strict: mbarrier-init-fence
    if (kFence) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  uint32_t tile = blockIdx.x;
  for (uint32_t trip = 0;; ++trip) {
    out[tile * blockDim.x + threadIdx.x] = float(tile);
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" ::"r"(smem(&resp_full)) : "memory");
      asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];" ::"r"(smem(&response)), "r"(smem(&resp_full)) : "memory");
    }
    wait(&resp_full, trip & 1);
    uint32_t canceled;
    const uint32_t next = query_first_cta(&response, canceled);
    __syncthreads();
    if (!canceled) break;
    tile = next;
  }
}
__global__ void clc_local_barrier_unfenced(float* out) { clc_local<false>(out); }
__global__ void clc_local_barrier_fenced(float* out) { clc_local<true>(out); }

// 3. CTA-local tcgen05.commit completing an "accumulator full" barrier:
// strict tier.
template <bool kFence>
__device__ __forceinline__ void commit_local(uint64_t a, uint64_t b, uint32_t idesc, float* out) {
  __shared__ uint32_t slot;
  __shared__ alignas(8) uint64_t acc_full;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&acc_full, 1);  // expect-strict: mbarrier-init-fence
    if (kFence) cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  if (threadIdx.x < 32) cuda::ptx::tcgen05_alloc(cuda::ptx::cta_group_1, &slot, 32);
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  if (threadIdx.x == 0) {
    cuda::ptx::tcgen05_mma(cuda::ptx::kind_f16, cuda::ptx::cta_group_1, slot, a, b, idesc, false);
    cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &acc_full);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&acc_full, 0)) {
  }
  cuda::ptx::tcgen05_fence_after_thread_sync();
  uint32_t v[1];
  cuda::ptx::tcgen05_ld_32x32b(v, slot + ((threadIdx.x / 32) * 32 << 16));
  cuda::ptx::tcgen05_wait_ld();
  out[threadIdx.x] = __uint_as_float(v[0]);
}
__global__ void __launch_bounds__(128) commit_barrier_unfenced(uint64_t a, uint64_t b, uint32_t idesc, float* out) {
  commit_local<false>(a, b, idesc, out);
}
__global__ void __launch_bounds__(128) commit_barrier_fenced(uint64_t a, uint64_t b, uint32_t idesc, float* out) {
  commit_local<true>(a, b, idesc, out);
}
