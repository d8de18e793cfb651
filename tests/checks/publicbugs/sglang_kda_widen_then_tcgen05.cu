// proxy-raw (generic shared writes read by tcgen05.mma, with the tcgen05
// thread-sync fences present), SGLang KDA prefill on SM103:
// https://github.com/sgl-project/sglang/pull/39124 (merged).
// Every thread converts a tile to a wider type and writes it to shared memory
// with ordinary stores; the tile is then an operand of a tcgen05 MMA issued by
// one thread after `tcgen05.fence::before_thread_sync`, a CTA barrier and
// `tcgen05.fence::after_thread_sync`. The PR: "__syncthreads() synchronizes
// participating threads, but it does not establish ordering between
// generic-proxy shared-memory writes and async-proxy reads"; the tcgen05 fences
// order tcgen05 operations, not the generic writes either. The fix issues
// fence.proxy.async.shared::cta right after the conversion, before the tcgen05
// fence and the barrier (an A/B stress test on B300 showed mismatches only
// without it). Our kernel: bf16 input widened to fp32 as the MMA's A operand.
// RUN: %fenceline check --arch sm_100a --verify %s
#include <cuda_bf16.h>

#include <cstdint>

// Shared-memory matrix descriptor: start address, leading/stride byte offsets, version bit.
__device__ __forceinline__ uint64_t operand_desc(const void* p) {
  uint64_t a = static_cast<uint64_t>(__cvta_generic_to_shared(p));
  return ((a & 0x3FFFF) >> 4) | (uint64_t(8) << 16) | (uint64_t(16) << 32) | (uint64_t(1) << 46);
}

template <bool kProxyFence>
__device__ __forceinline__ void widen_and_multiply(const __nv_bfloat16* l_in, uint32_t tmem, uint32_t idesc) {
  __shared__ alignas(128) float l_tile[128 * 8];
  __shared__ alignas(128) float b_tile[128 * 8];
  for (int i = threadIdx.x; i < 128 * 8; i += blockDim.x) {
    l_tile[i] = __bfloat162float(l_in[blockIdx.x * 1024 + i]);  // widen (generic stores)
    b_tile[i] = 1.f;
  }
  if (kProxyFence) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (threadIdx.x == 0) {
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
                 "tcgen05.mma.cta_group::1.kind::tf32 [%0], %1, %2, %3, p;\n\t}"
                 :: "r"(tmem), "l"(operand_desc(l_tile)), "l"(operand_desc(b_tile)), "r"(idesc) : "memory");
  }
}

__global__ void kda_widen_without_proxy_fence(const __nv_bfloat16* l_in, uint32_t tmem, uint32_t idesc) {
  widen_and_multiply<false>(l_in, tmem, idesc);  // expect: proxy-raw
}
__global__ void kda_widen_with_proxy_fence(const __nv_bfloat16* l_in, uint32_t tmem, uint32_t idesc) {
  widen_and_multiply<true>(l_in, tmem, idesc);
}
