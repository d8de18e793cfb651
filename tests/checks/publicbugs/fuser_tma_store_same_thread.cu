// proxy-raw within one thread (the thread that writes the staging tile issues
// the TMA store), nvFuser:
// https://github.com/NVIDIA/Fuser/pull/1967 (merged), following the review at
// https://github.com/NVIDIA/Fuser/pull/1962.
// nvFuser's generated TMA-store kernels staged the output in shared memory
// with ordinary stores (zero-fill, then a predicated copy of the input) and
// handed the buffer to cp.async.bulk.tensor right away. The TMA engine reads
// the buffer through the async proxy; program order inside the issuing thread
// does not order its generic writes before that read. The PR inserts
// `fence.proxy.async` between the last generic write and the store (the
// kernel in its description: zero-fill loop, predicated copy, fence, store,
// commit, wait_group.read). Our kernel: one thread per block stages 8 halves
// with a bounds predicate and stores them with a 1-D tensor store; no other
// thread touches the buffer, so no barrier is involved.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda_fp16.h>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

template <bool kFence>
__device__ __forceinline__ void stage_and_store(const __half* in, int n, const void* out_map) {
  __shared__ alignas(128) __half staging[8];
  if (threadIdx.x != 0) return;
  const int base = blockIdx.x * 8;
  for (int i = 0; i < 8; ++i) staging[i] = __float2half(0.f);
  for (int i = 0; i < 8; ++i) {
    if (base + i < n) staging[i] = in[base + i];
  }
  if (kFence) asm volatile("fence.proxy.async;" ::: "memory");
  const uint32_t src = smem(staging);
  asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];" ::"l"(out_map), "r"(base), "r"(src) : "memory");  // expect: proxy-raw
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

__global__ void tma_store_without_fence(const __half* in, int n, const void* out_map) {
  stage_and_store<false>(in, n, out_map);
}
__global__ void tma_store_after_fence(const __half* in, int n, const void* out_map) {
  stage_and_store<true>(in, n, out_map);
}
