// proxy-raw, TMA-store epilogues: threads write a staging tile with generic
// stores (st.shared or stmatrix), a barrier gathers them, one thread stores
// the tile to global memory with cp.async.bulk.tensor (async proxy reads the
// shared tile). Every writer fences before the barrier, or the issuing thread
// fences after it; expectations sit on the store.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/async_copy.cuh"

#include <cuda/barrier>

using namespace proxy_test;

enum Placement { kNone, kWritersBeforeBarrier, kIssuerBeforeBarrier, kIssuerAfterBarrier };

template <Placement kFence>
__device__ __forceinline__ void epilogue(const void* out_map, float value) {
  __shared__ alignas(128) float staging[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) staging[i] = value * i;
  if (kFence == kWritersBeforeBarrier) fence_proxy_async_cta();
  if (kFence == kIssuerBeforeBarrier && threadIdx.x == 0) fence_proxy_async_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    if (kFence == kIssuerAfterBarrier) fence_proxy_async_cta();
    tma_store_2d(out_map, blockIdx.x * 32, 0, staging);
    bulk_commit();
    bulk_wait_read0();
  }
}

__global__ void store_unfenced(const void* out_map, float v) {
  epilogue<kNone>(out_map, v);  // expect: proxy-raw
}
__global__ void store_writers_fence(const void* out_map, float v) { epilogue<kWritersBeforeBarrier>(out_map, v); }
__global__ void store_issuer_fence_before_barrier(const void* out_map, float v) {
  epilogue<kIssuerBeforeBarrier>(out_map, v);  // expect: proxy-raw
}
__global__ void store_issuer_fence_after_barrier(const void* out_map, float v) {
  epilogue<kIssuerAfterBarrier>(out_map, v);
}

// stmatrix writers (one warp writes a 16x16 bf16 fragment per x4), then a
// non-tensor bulk store of the tile.
template <bool kFenced>
__device__ __forceinline__ void stmatrix_epilogue(uint16_t* out, uint32_t v) {
  __shared__ alignas(128) uint16_t tile[4][16 * 16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint32_t addr = smem(&tile[warp][(lane % 16) * 16 + (lane / 16) * 8]);
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v), "r"(v + 1),
               "r"(v + 2), "r"(v + 3)
               : "memory");
  if (kFenced) fence_proxy_async_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    bulk_store(out + blockIdx.x * sizeof(tile) / 2, tile, sizeof(tile));
    bulk_commit();
    bulk_wait_read0();
  }
}

__global__ void stmatrix_unfenced(uint16_t* out, uint32_t v) {
  stmatrix_epilogue<false>(out, v);  // expect: proxy-raw
}
__global__ void stmatrix_fenced(uint16_t* out, uint32_t v) { stmatrix_epilogue<true>(out, v); }

// The programming guide's shape with cuda::device::experimental: the tile is
// written through generic stores, fenced by every writer, then stored.
namespace cde = cuda::device::experimental;
template <bool kFenced>
__device__ __forceinline__ void libcu_store(int* out, int v) {
  __shared__ alignas(128) int data[256];
  data[threadIdx.x % 256] = v + threadIdx.x;
  if (kFenced) cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_shared_to_global(out + blockIdx.x * 256, data, sizeof(data));
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

__global__ void libcu_store_unfenced(int* out, int v) {
  libcu_store<false>(out, v);  // expect: proxy-raw
}
__global__ void libcu_store_fenced(int* out, int v) { libcu_store<true>(out, v); }

// cp.reduce.async.bulk (global += shared tile) reads the tile through the async proxy too.
template <bool kFenced>
__device__ __forceinline__ void reduce_epilogue(float* out, float v) {
  __shared__ alignas(128) float partial[256];
  partial[threadIdx.x % 256] = v * threadIdx.x;
  if (kFenced) fence_proxy_async_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(out),
                 "r"(smem(partial)), "r"(uint32_t(sizeof(partial)))
                 : "memory");
    bulk_commit();
    bulk_wait_read0();
  }
}

__global__ void reduce_store_unfenced(float* out, float v) {
  reduce_epilogue<false>(out, v);  // expect: proxy-raw
}
__global__ void reduce_store_fenced(float* out, float v) { reduce_epilogue<true>(out, v); }
