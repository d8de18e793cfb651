// proxy-raw, wgmma operands filled through the CUDA C++ copy APIs that
// compile to Ampere cp.async (generic proxy): the __pipeline_* primitives of
// <cuda_pipeline.h> (cp.async + commit_group + wait_group) and libcu++'s
// cuda::memcpy_async with a thread-scope cuda::pipeline (the same
// instructions behind producer_commit / consumer_wait). The copies complete
// at the wait; a fence.proxy.async after it (every copying thread) or after
// the barrier (every issuing thread) is needed before wgmma reads the tiles.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/pipeline>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>

#include "Inputs/async_copy.cuh"
#include "Inputs/wgmma.cuh"

using namespace proxy_test;

template <bool kFence>
__device__ __forceinline__ void mma_from_pipeline_primitives(const int4* a, const int4* b, float* out) {
  __shared__ alignas(128) __nv_bfloat16 tileA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 tileB[64 * 16];
  __pipeline_memcpy_async(&reinterpret_cast<int4*>(tileA)[threadIdx.x], a + blockIdx.x * 128 + threadIdx.x, 16);
  __pipeline_memcpy_async(&reinterpret_cast<int4*>(tileB)[threadIdx.x], b + blockIdx.x * 128 + threadIdx.x, 16);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  if (kFence) fence_proxy_async_cta();  // every copying thread, after its wait
  __syncthreads();
  Accum c{};
  wgmma_m64n64k16(c, smem_desc(tileA), smem_desc(tileB));
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 32 + i] = c.d[i];
}

__global__ void pipeline_primitives_unfenced(const int4* a, const int4* b, float* out) {
  mma_from_pipeline_primitives<false>(a, b, out);  // expect: proxy-raw
}

__global__ void pipeline_primitives_fenced(const int4* a, const int4* b, float* out) {
  mma_from_pipeline_primitives<true>(a, b, out);
}

template <bool kFence>
__device__ __forceinline__ void mma_from_libcu_pipeline(const int4* a, const int4* b, float* out) {
  __shared__ alignas(128) __nv_bfloat16 tileA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 tileB[64 * 16];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  pipe.producer_acquire();
  cuda::memcpy_async(&reinterpret_cast<int4*>(tileA)[threadIdx.x], a + blockIdx.x * 128 + threadIdx.x,
                     cuda::aligned_size_t<16>(16), pipe);
  cuda::memcpy_async(&reinterpret_cast<int4*>(tileB)[threadIdx.x], b + blockIdx.x * 128 + threadIdx.x,
                     cuda::aligned_size_t<16>(16), pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  __syncthreads();
  if (kFence) fence_proxy_async_cta();  // every issuing thread, after the barrier
  Accum c{};
  wgmma_m64n64k16(c, smem_desc(tileA), smem_desc(tileB));
  pipe.consumer_release();
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 32 + i] = c.d[i];
}

__global__ void libcu_pipeline_unfenced(const int4* a, const int4* b, float* out) {
  mma_from_libcu_pipeline<false>(a, b, out);  // expect: proxy-raw
}

__global__ void libcu_pipeline_fenced(const int4* a, const int4* b, float* out) {
  mma_from_libcu_pipeline<true>(a, b, out);
}
