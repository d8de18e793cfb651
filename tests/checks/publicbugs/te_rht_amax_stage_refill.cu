// proxy-war (generic reads of a stage before a bulk load refills it, handed
// over by __syncthreads()), TransformerEngine RHT amax kernels:
// https://github.com/NVIDIA/TransformerEngine/pull/2695 (merged).
// A block walks its input through a two-stage shared-memory ring: one thread
// fills a stage with an asynchronous bulk copy, every thread waits on the
// stage's mbarrier and reads the stage with ordinary shared loads (here: to
// take the absolute maximum), a __syncthreads() tells the issuing thread that
// the stage is free, and it starts the copy of the next-but-one chunk into the
// same stage. The PR: "Ensure there is a proxy fence between the shmem load and
// the TMA copy of the next stage to avoid a potential race" -- the barrier
// orders the threads, not the generic proxy's reads against the async proxy's
// write. Our kernel: the readers fence (fence.proxy.async.shared::cta) before
// the barrier in the fixed twin.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/ptx>

#include <cstdint>

template <bool kFence>
__device__ __forceinline__ void stage_amax(const float* src, float* amax_out, int chunks) {
  __shared__ alignas(128) float stage[2][256];
  __shared__ alignas(8) uint64_t full[2];
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) cuda::ptx::mbarrier_init(&full[s], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  const float* base = src + blockIdx.x * chunks * 256;
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2 && s < chunks; ++s) {
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                           &full[s], 1024);
      cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, stage[s], base + s * 256, 1024,
                               &full[s]);
    }
  }
  float amax = 0.f;
  for (int i = 0; i < chunks; ++i) {
    const int s = i & 1;
    while (!cuda::ptx::mbarrier_try_wait_parity(&full[s], (i >> 1) & 1)) {
    }
    amax = fmaxf(amax, fabsf(stage[s][threadIdx.x]));  // generic shared load; the barrier below frees the stage
    if (kFence) cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();  // expect: proxy-war
    if (threadIdx.x == 0 && i + 2 < chunks) {
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                           &full[s], 1024);
      cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, stage[s], base + (i + 2) * 256, 1024,
                               &full[s]);
    }
  }
  amax_out[blockIdx.x * blockDim.x + threadIdx.x] = amax;
}

__global__ void rht_amax_refill_unfenced(const float* src, float* amax_out, int chunks) {
  stage_amax<false>(src, amax_out, chunks);
}
__global__ void rht_amax_refill_fenced(const float* src, float* amax_out, int chunks) {
  stage_amax<true>(src, amax_out, chunks);
}
