// proxy-war in a file that spells its fences the CUTLASS way: --fix inserts
// cutlass::arch::fence_view_async_shared(). The two CUTLASS functions are
// defined here as CUTLASS defines them (cutlass/arch/barrier.h), so that the
// test needs no CUTLASS checkout.
#include "async_copy.cuh"

namespace cutlass::arch {
__device__ __forceinline__ void fence_view_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
}  // namespace cutlass::arch

using namespace proxy_test;

__global__ void ring(const float* src, float* out, int iters) {
  __shared__ alignas(128) float data[1024];
  __shared__ uint64_t full, empty;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    mbar_init(&empty, 1);
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();
  if (warp == 0) {
    for (int k = 0; lane == 0 && k < iters; ++k) {
      mbar_wait(&empty, (k & 1) ^ 1);
      mbar_arrive_expect_tx(&full, sizeof(data));
      bulk_load(data, src + size_t(k) * 1024, sizeof(data), &full);
    }
    return;
  }
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    mbar_wait(&full, k & 1);
    for (int j = lane; j < 1024; j += 32) acc += data[j];
    if (lane == 0) mbar_arrive(&empty);
  }
  out[threadIdx.x] = acc;
}
