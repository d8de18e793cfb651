// Issue 30, shape 11: named barriers with the barrier id in a register. One
// warpgroup writes a shared-memory tile with generic stores and signals with
// bar.arrive on a named barrier whose id is computed at run time (per
// warpgroup, as attention kernels number their barriers); another warpgroup
// waits with bar.sync on the same id and feeds the tile to wgmma. The writers
// need fence.proxy.async before their bar.arrive (or the wgmma warpgroup
// after its bar.sync, before the wgmma).
// Shapes: the id from the warpgroup index (base + wg, base a kernel
// argument) with bar.arrive in a noinline helper; the id as an immediate;
// the fixed forms (the writers fence before bar.arrive; the wgmma warpgroup
// fences after its bar.sync).
// proxy-raw pairs a bar.arrive with the issuer's bar.sync of the same named
// barrier id (ProxyCommon.h, isNamedBarrierArrive): decided when both ids
// are immediates or one value (nvcc folds base + wg to base + 1 inside the
// wg == 1 branch, the same value as the other branch's base + 1).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda_fp16.h>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ uint64_t desc(const void* p) {
  return ((smem(p) & 0x3FFFF) >> 4) | (uint64_t(1) << 16) | (uint64_t(8) << 32);
}
__device__ __forceinline__ void wgmma_m64n8k16(const __half* a, const __half* b, float (&d)[4]) {
  const uint64_t da = desc(a), db = desc(b);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, 0, 1, 1, 0, 0;" : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(da), "l"(db) : "memory");
  asm volatile("wgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;" ::: "memory");
}
__device__ __noinline__ void named_arrive(uint32_t id) { asm volatile("bar.arrive %0, 256;" ::"r"(id) : "memory"); }
__device__ __forceinline__ void named_sync(uint32_t id) { asm volatile("bar.sync %0, 256;" ::"r"(id) : "memory"); }

// 1. Warpgroup 1 converts a tile into shared memory and arrives on barrier
// base + 1; warpgroup 0 syncs on it and runs wgmma on the tile.
template <bool kFence>
__device__ __forceinline__ void convert_then_mma(const float* a_f32, const __half* b, float* out, uint32_t base) {
  __shared__ alignas(128) __half sa[64 * 16];
  __shared__ alignas(128) __half sb[16 * 8];
  const uint32_t wg = threadIdx.x / 128;
  if (wg == 1) {
    const unsigned t = threadIdx.x - 128;
    for (int i = t; i < 64 * 16; i += 128) sa[i] = __float2half(a_f32[i]);
    for (int i = t; i < 16 * 8; i += 128) sb[i] = b[i];
    if (kFence) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    named_arrive(base + wg);
  } else {
    named_sync(base + 1);
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    wgmma_m64n8k16(sa, sb, d);  // expect: proxy-raw
    for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
  }
}
__global__ void __launch_bounds__(256) register_id_no_fence(const float* a, const __half* b, float* out, uint32_t base) {
  convert_then_mma<false>(a, b, out, base);
}
__global__ void __launch_bounds__(256) register_id_fenced(const float* a, const __half* b, float* out, uint32_t base) {
  convert_then_mma<true>(a, b, out, base);
}

// 2. The same hand-off with the id as an immediate (bar.arrive 3, 256): the
// reference shape, fenced by the wgmma warpgroup after its bar.sync.
template <bool kFence>
__device__ __forceinline__ void immediate_id(const float* a_f32, const __half* b, float* out) {
  __shared__ alignas(128) __half sa[64 * 16];
  __shared__ alignas(128) __half sb[16 * 8];
  if (threadIdx.x >= 128) {
    const unsigned t = threadIdx.x - 128;
    for (int i = t; i < 64 * 16; i += 128) sa[i] = __float2half(a_f32[i] * 2.0f);
    for (int i = t; i < 16 * 8; i += 128) sb[i] = b[i];
    asm volatile("bar.arrive 3, 256;" ::: "memory");
  } else {
    asm volatile("bar.sync 3, 256;" ::: "memory");
    if (kFence) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    wgmma_m64n8k16(sa, sb, d);  // expect: proxy-raw
    for (int i = 0; i < 4; ++i) out[threadIdx.x * 4 + i] = d[i];
  }
}
__global__ void __launch_bounds__(256) immediate_id_no_fence(const float* a, const __half* b, float* out) {
  immediate_id<false>(a, b, out);
}
__global__ void __launch_bounds__(256) immediate_id_fenced_after_sync(const float* a, const __half* b, float* out) {
  immediate_id<true>(a, b, out);
}
