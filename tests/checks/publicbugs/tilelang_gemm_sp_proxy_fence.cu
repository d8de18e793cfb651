// Shape 11 (generic writes read by wgmma without the proxy fence), TileLang
// T.gemm_sp on Hopper: https://github.com/tile-ai/tilelang/issues/2634
// (closed): "T.gemm_sp emits code that omits the fence.proxy.async the PTX
// proxy model requires between a generic-proxy write to a shared WGMMA
// operand tile and the async-proxy wgmma.mma_async.sp read of that same
// tile. On the identical kernel, the dense T.gemm emits the fence and the
// sparse T.gemm_sp emits zero" (PTX ISA 9.7.16.7.1: an async proxy fence must
// order prior writes to shared memory matrices before wgmma reads them).
// Our kernel: one warpgroup writes the A and B tiles with generic stores,
// a named barrier over the warpgroup, then a sparse wgmma reads them through
// descriptors; broken without the fence, fixed with fence.proxy.async by
// every writer before the barrier.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda_fp16.h>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ uint64_t desc(const void* p) {
  // No swizzle, 16-byte strides: enough for the checker to decode the range.
  uint64_t addr = (smem(p) & 0x3FFFF) >> 4;
  return addr | (uint64_t(1) << 16) | (uint64_t(8) << 32);
}

template <bool kFence>
__device__ __forceinline__ void sparse_tile(const __half* a, const __half* b, uint32_t meta, float* out) {
  __shared__ alignas(128) __half sa[64 * 16];  // A: 64 x 32 at 2:4 density
  __shared__ alignas(128) __half sb[32 * 8];   // B: 32 x 8
  for (int i = threadIdx.x; i < 64 * 16; i += 128) sa[i] = a[i];
  for (int i = threadIdx.x; i < 32 * 8; i += 128) sb[i] = b[i];
  if (kFence) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("bar.sync 1, 128;" ::: "memory");
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  const uint64_t da = desc(sa), db = desc(sb);
  asm volatile("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, %6, 0, 1, 1, 1, 0, 0;" : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db), "r"(meta) : "memory");  // expect: proxy-raw
  asm volatile("wgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;" ::: "memory");
  out[threadIdx.x * 4 + 0] = d0;
  out[threadIdx.x * 4 + 1] = d1;
  out[threadIdx.x * 4 + 2] = d2;
  out[threadIdx.x * 4 + 3] = d3;
}

__global__ void __launch_bounds__(128) gemm_sp_without_fence(const __half* a, const __half* b, uint32_t meta, float* out) {
  sparse_tile<false>(a, b, meta, out);
}
__global__ void __launch_bounds__(128) gemm_sp_with_fence(const __half* a, const __half* b, uint32_t meta, float* out) {
  sparse_tile<true>(a, b, meta, out);
}
