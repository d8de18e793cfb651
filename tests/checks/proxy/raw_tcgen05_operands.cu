// proxy-raw, tcgen05 (sm_100a): the threads write both MMA operand tiles with
// generic stores, a __syncthreads() gathers them, thread 0 issues tcgen05.mma,
// which reads the tiles through their shared-memory descriptors in the async
// proxy. Every writer fences before the barrier in the fixed twin.
// RUN: %fenceline check --arch sm_100a --verify %s
#include <cstdint>

// Shared-memory matrix descriptor: start address, leading/stride byte offsets, version bit.
__device__ __forceinline__ uint64_t desc(const void* p) {
  uint64_t a = static_cast<uint64_t>(__cvta_generic_to_shared(p));
  return ((a & 0x3FFFF) >> 4) | (uint64_t(8) << 16) | (uint64_t(16) << 32) | (uint64_t(1) << 46);
}
template <bool kFenced>
__device__ __forceinline__ void body(const float* a, uint32_t tmem, uint32_t idesc) {
  __shared__ alignas(128) uint16_t tileA[128 * 16];
  __shared__ alignas(128) uint16_t tileB[128 * 16];
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) {
    tileA[i] = static_cast<uint16_t>(a[i]);
    tileB[i] = static_cast<uint16_t>(a[i + 2048]);
  }
  if (kFenced) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
                 "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}"
                 :: "r"(tmem), "l"(desc(tileA)), "l"(desc(tileB)), "r"(idesc) : "memory");
  }
}

__global__ void tc_unfenced(const float* a, uint32_t tmem, uint32_t idesc) {
  body<false>(a, tmem, idesc);  // expect: proxy-raw
}
__global__ void tc_fenced(const float* a, uint32_t tmem, uint32_t idesc) { body<true>(a, tmem, idesc); }
