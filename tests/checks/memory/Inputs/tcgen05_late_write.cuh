// The body the tcgen05 descriptor tests share: a CTA stages operands A and B
// and, after them, a scale buffer in one dynamic shared buffer, fences the
// generic writes for the async proxy, then writes once more after the fence,
// either to the scale buffer (read back with ld.shared: no proxy-raw) or into
// operand B (proxy-raw at the MMA), and one thread issues the MMA the test
// passes in. What each test varies is how the MMA locates its operands (the
// instruction descriptor, the CTA pair): it decides whether the model can
// tell the scale buffer from B.
#pragma once

#include <cstdint>

namespace tcgen05_test {

// UMMA::SmemDescriptor as CUTLASS builds it for a K-major SWIZZLE_NONE tile:
// start address >> 4 in bits 0-13, LBO 8 (128 bytes), SBO 16 (256 bytes),
// version 1 (bit 46).
__device__ __forceinline__ uint64_t make_smem_desc(const void* p) {
  uint64_t a = static_cast<uint64_t>(__cvta_generic_to_shared(p));
  return ((a & 0x3FFFF) >> 4) | (uint64_t(8) << 16) | (uint64_t(16) << 32) | (uint64_t(1) << 46);
}

enum LateWrite { kLateScale, kLateOperand };

// A at [smem, smem + kBytesA), B at [smem + kBytesA, + kBytesB), the scales
// right after B. The operand write after the fence zeroes kRowBytes bytes of
// B at kLateRow (a byte offset into B). `mma(descA, descB)` issues the MMA.
template <LateWrite kLate, uint32_t kBytesA, uint32_t kBytesB, uint32_t kRowBytes, uint32_t kLateRow, class Mma>
__device__ __forceinline__ void stage_fence_write_mma(const uint8_t* in, const float* scale, float* out, Mma mma) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* tileA = smem;
  uint8_t* tileB = smem + kBytesA;
  float* scales = reinterpret_cast<float*>(smem + kBytesA + kBytesB);
  for (uint32_t i = threadIdx.x; i < kBytesA + kBytesB; i += blockDim.x) smem[i] = in[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (threadIdx.x < 128) {
    if (kLate == kLateScale) scales[threadIdx.x] = scale[threadIdx.x];
    else tileB[kLateRow + threadIdx.x % kRowBytes] = 0;
  }
  __syncthreads();
  if (threadIdx.x == 0) mma(make_smem_desc(tileA), make_smem_desc(tileB));
  out[threadIdx.x] = scales[threadIdx.x % 128];
}

}  // namespace tcgen05_test
