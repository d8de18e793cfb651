// Shape 8, CTA-local case (strict tier), FlashKDA SM90 forward:
// https://github.com/MoonshotAI/FlashKDA/pull/25 (merged): "3 standalone
// mbarriers: mbarrier.init (generic write) was used by TMA complete-tx (async
// proxy RMW) without fence.mbarrier_init. Added fence_barrier_init() after
// each init, matching CUTLASS PipelineTmaAsync::init_barriers." The barrier
// is used inside one CTA only (no cluster), where the field disagrees on
// whether the fence is needed (../shared/ordering-rules.md, "mbarrier init":
// strict tier only). Our kernel: thread 0 initializes, __syncthreads()
// publishes, a TMA (bulk) load completes on the barrier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cuda/ptx>

#include <cstdint>

template <bool kFence>
__device__ __forceinline__ void load_chunk(const float* g, float* out) {
  __shared__ alignas(128) float chunk[512];
  __shared__ alignas(8) uint64_t loaded;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&loaded, 1);  // expect-strict: mbarrier-init-fence
    if (kFence) cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                         &loaded, 2048);
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, chunk, g + blockIdx.x * 512, 2048,
                             &loaded);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&loaded, 0)) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = chunk[threadIdx.x];
}

__global__ void standalone_barrier_unfenced(const float* g, float* out) { load_chunk<false>(g, out); }
__global__ void standalone_barrier_fence_barrier_init(const float* g, float* out) { load_chunk<true>(g, out); }
