// proxy-war, TMA tile loads written with libcu++'s cuda::ptx wrappers
// (cp_async_bulk_tensor, mbarrier_*, fence_proxy_async), consumers read with
// plain shared loads, one elected lane per warp releases the stage.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

constexpr int kStages = 2;
constexpr int kTileFloats = 32 * 32;

struct Smem {
  alignas(128) float tile[kStages][kTileFloats];
  uint64_t full[kStages];
  uint64_t empty[kStages];
};

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

template <int kVariant>  // 0: no fence, 1: consumers fence, 2: producer fences after its wait
__device__ __forceinline__ void run(const void* tmap, float* out, int iters) {
  __shared__ Smem sm;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      ptx::mbarrier_init(&sm.full[s], 1);
      ptx::mbarrier_init(&sm.empty[s], 2);
    }
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (warp == 2) {
    if (lane == 0)
      for (int k = 0; k < iters; ++k) {
        int s = k % kStages;
        wait_parity(&sm.empty[s], ((k / kStages) & 1) ^ 1);
        if (kVariant == 2) ptx::fence_proxy_async(ptx::space_shared);
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &sm.full[s],
                                       kTileFloats * 4);
        const int32_t coords[2] = {0, k * 32};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, sm.tile[s], tmap, coords, &sm.full[s]);
      }
    return;
  }
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    wait_parity(&sm.full[s], (k / kStages) & 1);
    for (int j = threadIdx.x; j < kTileFloats; j += 64) acc += sm.tile[s][j];
    if (kVariant == 1) ptx::fence_proxy_async(ptx::space_shared);
    if (lane == 0) ptx::mbarrier_arrive(&sm.empty[s]);
  }
  out[blockIdx.x * 64 + threadIdx.x] = acc;
}

__global__ void libcu_ptx_no_fence(const void* tmap, float* out, int iters) {
  run<0>(tmap, out, iters);  // expect: proxy-war
}

__global__ void libcu_ptx_consumer_fence(const void* tmap, float* out, int iters) { run<1>(tmap, out, iters); }

__global__ void libcu_ptx_producer_fence(const void* tmap, float* out, int iters) { run<2>(tmap, out, iters); }
