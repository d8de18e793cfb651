// Issue 34, shape N (cuEquivariance's cuDNN attention kernels): a
// cluster-launch-control scheduler whose request multicasts its response
// (`.multicast::cluster::all`) into an mbarrier initialized without
// fence.mbarrier_init. The multicast reaches other CTAs only in a cluster of
// several. A kernel that shows no cluster (no cluster directive, no read of
// its position in one, no mapa, no cluster barrier, no CTA-pair operation)
// and whose every CTA arms its own barrier and issues its own request is
// consistent only with a cluster of one: the use by other CTAs is not
// decided (strict tier, `no-cluster-evidence`). The same body in a kernel
// that declares two CTAs per cluster, or that sends the request from rank 0
// alone, fires; a declared cluster of one makes the use CTA-local (disputed:
// strict); the fence silences the cluster form.
// RUN: %fenceline check --arch sm_100a --verify %s
// RUN: %fenceline check --arch sm_100a --strict --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void wait_phase(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred ok;\n\tSPIN:\n\tmbarrier.try_wait.parity.shared::cta.b64 ok, [%0], %1;\n\t@!ok bra "
      "SPIN;\n\t}" ::"r"(shared_address(bar)),
      "r"(parity)
      : "memory");
}

// The response's first CTA, and whether the request cancelled a cluster.
__device__ __forceinline__ uint32_t decode_response(const uint4* response, uint32_t& cancelled) {
  uint32_t first;
  asm volatile(
      "{\n\t.reg .b128 resp;\n\t.reg .pred got;\n\tld.shared.b128 resp, [%2];\n\t"
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 got, resp;\n\tselp.u32 %0, 1, 0, got;\n\t"
      "@got clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %1, resp;\n\t}"
      : "=r"(cancelled), "=r"(first)
      : "r"(shared_address(response))
      : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  return first;
}

__device__ __forceinline__ uint32_t rank_in_cluster() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

// The scheduler loop after the kernel's own init. kRankZeroAsks: only rank 0
// of the cluster sends the request (the kernel then reads its position in
// the cluster); else every CTA sends its own.
template <bool kRankZeroAsks>
__device__ __forceinline__ void schedule(float* work, uint4* response, uint64_t* response_full) {
  const bool asks = kRankZeroAsks ? rank_in_cluster() == 0 : true;
  __syncthreads();
  uint32_t item = blockIdx.x;
  for (uint32_t trip = 0;; ++trip) {
    work[item * blockDim.x + threadIdx.x] *= 2.0f;
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" ::"r"(shared_address(response_full))
                   : "memory");
      if (asks)
        asm volatile(
            "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all."
            "b128 [%0], [%1];" ::"r"(shared_address(response)),
            "r"(shared_address(response_full))
            : "memory");
    }
    wait_phase(response_full, trip & 1);
    uint32_t cancelled;
    const uint32_t next = decode_response(response, cancelled);
    __syncthreads();
    if (!cancelled) break;
    item = next;
  }
}

#define SCHEDULER_STATE                      \
  __shared__ alignas(16) uint4 response;     \
  __shared__ alignas(8) uint64_t response_full

// Each kernel writes its own init: a finding names that line.

// No cluster shown: each CTA arms its barrier for one response and asks for
// itself, so the response reaches only its own barrier.
__global__ void clc_no_cluster_unfenced(float* work) {
  SCHEDULER_STATE;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&response_full)) : "memory");  // expect-strict: mbarrier-init-fence
  }
  schedule<false>(work, &response, &response_full);
}
__global__ void clc_no_cluster_fenced(float* work) {
  SCHEDULER_STATE;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&response_full)) : "memory");
    init_fence();
  }
  schedule<false>(work, &response, &response_full);
}

// A declared cluster of two CTAs: the response completes on both CTAs'
// barriers.
__global__ void __cluster_dims__(2, 1, 1) clc_two_cta_cluster_unfenced(float* work) {
  SCHEDULER_STATE;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&response_full)) : "memory");  // expect: mbarrier-init-fence
  }
  schedule<false>(work, &response, &response_full);
}
__global__ void __cluster_dims__(2, 1, 1) clc_two_cta_cluster_fenced(float* work) {
  SCHEDULER_STATE;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&response_full)) : "memory");
    init_fence();
  }
  schedule<false>(work, &response, &response_full);
}

// Rank 0 asks for the cluster: the kernel reads its position in a cluster.
__global__ void clc_rank_zero_asks_unfenced(float* work) {
  SCHEDULER_STATE;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&response_full)) : "memory");  // expect: mbarrier-init-fence
  }
  schedule<true>(work, &response, &response_full);
}
__global__ void clc_rank_zero_asks_fenced(float* work) {
  SCHEDULER_STATE;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&response_full)) : "memory");
    init_fence();
  }
  schedule<true>(work, &response, &response_full);
}

// A declared cluster of one CTA: the multicast completes on the CTA's own
// barrier, an async use inside one CTA (disputed).
__global__ void __cluster_dims__(1, 1, 1) clc_one_cta_cluster_unfenced(float* work) {
  SCHEDULER_STATE;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&response_full)) : "memory");  // expect-strict: mbarrier-init-fence
  }
  schedule<false>(work, &response, &response_full);
}
