// proxy-war with libcu++ cuda::barrier: every thread arrives and waits on one
// block-scope barrier per tile, thread 0 refills the tile (TMA through
// cuda::device::experimental, or cuda::memcpy_async, which issues a bulk copy
// on sm_90), and a __syncthreads() at the end of each iteration hands the tile
// back. Broken kernels carry the expectation on that __syncthreads().
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cuda/barrier>
#include <cuda/std/utility>
#include <cstdint>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

constexpr int kTileFloats = 64 * 32;

template <bool kFenced>
__device__ __forceinline__ float tma_tiles(const CUtensorMap* map, int iters) {
  __shared__ alignas(128) float tile[kTileFloats];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();  // makes the initialized barrier visible to the async proxy
  }
  __syncthreads();
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    block_barrier::arrival_token token;
    if (threadIdx.x == 0) {
      cde::cp_async_bulk_tensor_2d_global_to_shared(tile, map, 0, k * 64, bar);
      token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
      token = bar.arrive();
    }
    bar.wait(cuda::std::move(token));
    acc += tile[threadIdx.x] * tile[kTileFloats - 1 - threadIdx.x];
    if (kFenced) cde::fence_proxy_async_shared_cta();
    __syncthreads();
  }
  return acc;
}

__global__ void libcu_barrier_tma_no_fence(const CUtensorMap* map, float* out, int iters) {
  out[threadIdx.x] = tma_tiles<false>(map, iters);  // expect: proxy-war
}

__global__ void libcu_barrier_tma_fenced(const CUtensorMap* map, float* out, int iters) {
  out[threadIdx.x] = tma_tiles<true>(map, iters);
}

// cuda::memcpy_async into a tile, issued by thread 0, with a block barrier.
template <bool kFenced>
__device__ __forceinline__ float memcpy_tiles(const float* src, int iters) {
  __shared__ alignas(128) float tile[kTileFloats];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);  // expect-strict: mbarrier-init-fence// expect-strict: mbarrier-init-fence
  __syncthreads();
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    if (threadIdx.x == 0)
      cuda::memcpy_async(tile, src + size_t(k) * kTileFloats, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    bar.arrive_and_wait();
    acc += tile[threadIdx.x];
    if (kFenced) cde::fence_proxy_async_shared_cta();
    __syncthreads();
  }
  return acc;
}

__global__ void libcu_memcpy_async_no_fence(const float* src, float* out, int iters) {
  out[threadIdx.x] = memcpy_tiles<false>(src, iters);  // expect: proxy-war
}

__global__ void libcu_memcpy_async_fenced(const float* src, float* out, int iters) {
  out[threadIdx.x] = memcpy_tiles<true>(src, iters);
}
