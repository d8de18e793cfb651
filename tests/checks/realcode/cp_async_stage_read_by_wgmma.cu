// Missed hand-off found in the real-code corpus (docs/real-code.md, "cp.async operands of
// wgmma"): FlashInfer's Hopper MLA kernel (flashinfer_mla_hopper) and its paged-KV prefill
// (flashinfer_prefill_sm90) gather paged K/V with Ampere-style `cp.async` (a generic-proxy
// copy) and complete the stage on an mbarrier (`cp.async.mbarrier.arrive`); TileLang's GEMM
// with `disable_tma` copies (tl_gemm_cp_async_sm90) completes them with
// `cp.async.wait_group` and `__syncthreads()`. Then wgmma reads the stage through the async
// proxy. A generic write read by the async proxy needs fence.proxy.async after the copy has
// completed (ordering-rules.md, proxy-raw): by every thread after its wait, before issuing.
// proxy-raw takes cp.async as a generic-proxy write of its destination that takes effect at
// its completion (model/CopyCompletion.h: cp.async.wait_group / wait_all, or the waits of the
// mbarrier its cp.async.mbarrier.arrive signals); it was a missed hand-off (XFAIL) before.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda_bf16.h>

#include "../proxy/Inputs/async_copy.cuh"
#include "../proxy/Inputs/wgmma.cuh"

using namespace proxy_test;

__device__ __forceinline__ void cp_async_16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(dst)), "l"(src) : "memory");
}

// Each of 128 threads copies 16 bytes of A and of B, waits for its copies, then the block
// synchronizes and the warpgroup issues wgmma on both tiles.
template <bool kFence>
__device__ __forceinline__ void mma_from_cp_async(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out) {
  __shared__ alignas(128) __nv_bfloat16 tileA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 tileB[64 * 16];
  cp_async_16(&tileA[threadIdx.x * 8], a + blockIdx.x * 1024 + threadIdx.x * 8);
  cp_async_16(&tileB[threadIdx.x * 8], b + blockIdx.x * 1024 + threadIdx.x * 8);
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  if (kFence) fence_proxy_async_cta();  // every issuing thread, after the barrier
  Accum c{};
  wgmma_m64n64k16(c, smem_desc(tileA), smem_desc(tileB));
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 32 + i] = c.d[i];
}

// Broken: the copies' generic writes reach wgmma's async-proxy reads unfenced.
__global__ void wgmma_cp_async_operands_unfenced(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out) {
  mma_from_cp_async<false>(a, b, out);  // expect: proxy-raw
}

// Fixed: fence.proxy.async after the wait and the barrier (TileLang's in-loop placement).
__global__ void wgmma_cp_async_operands_fenced(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out) {
  mma_from_cp_async<true>(a, b, out);
}
