// Issue 11, shape 3 on sm_100a: tcgen05.mma reads its A and B operands
// through shared-memory descriptors (start address (addr & 0x3FFFF) >> 4 in
// bits 0-13, version bit 46) from one dynamic buffer: A [smem, smem+4096),
// B [smem+4096, smem+8192), then a scale buffer [smem+8192, smem+8704). The
// threads write the operands with plain stores and fence before the barrier;
// a write made after the fence must be to another buffer (the scales: no
// proxy-raw) or it is an unfenced operand write (proxy-raw at the MMA).
// XFAIL: *
// XFAIL reason (issue 11 shape 3): the descriptors are decoded (start address
// and stride byte offset), but the instruction descriptor is a kernel
// parameter here, so N is unknown and B's span is taken as 256 rows, which
// reaches the scale buffer (false proxy-raw). With a constant idesc (the
// form Triton and CUTLASS emit) the operands are exact.
// RUN: %fenceline check --arch sm_100a --verify %s
#include <cstdint>

constexpr uint32_t kOperandBytes = 128 * 16 * 2;  // 128x16 bf16
constexpr uint32_t kScaleOffset = 2 * kOperandBytes;

__device__ __forceinline__ uint64_t make_smem_desc(const void* p) {
  uint64_t a = static_cast<uint64_t>(__cvta_generic_to_shared(p));
  return ((a & 0x3FFFF) >> 4) | (uint64_t(8) << 16) | (uint64_t(16) << 32) | (uint64_t(1) << 46);
}

__device__ __forceinline__ void umma_f16(uint32_t tmem, uint64_t da, uint64_t db, uint32_t idesc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem),
      "l"(da), "l"(db), "r"(idesc)
      : "memory");
}

enum LateWrite { kLateScale, kLateOperand };

template <LateWrite kLate>
__device__ __forceinline__ void body(const float* a, const float* scale, float* out, uint32_t tmem, uint32_t idesc) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint16_t* tileA = reinterpret_cast<uint16_t*>(smem);
  uint16_t* tileB = reinterpret_cast<uint16_t*>(smem + kOperandBytes);
  float* scales = reinterpret_cast<float*>(smem + kScaleOffset);
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) {
    tileA[i] = static_cast<uint16_t>(a[i]);
    tileB[i] = static_cast<uint16_t>(a[i + 2048]);
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (threadIdx.x < 128) {
    if (kLate == kLateScale) scales[threadIdx.x] = scale[threadIdx.x];
    else tileA[128 * 15 + threadIdx.x] = 0;  // zero the last row after the fence
  }
  __syncthreads();
  if (threadIdx.x == 0) umma_f16(tmem, make_smem_desc(tileA), make_smem_desc(tileB), idesc);
  out[threadIdx.x] = scales[threadIdx.x % 128];
}

// Clean: the write after the fence goes to the scale buffer.
__global__ void tc_late_scale_write(const float* a, const float* s, float* out, uint32_t tmem, uint32_t idesc) {
  body<kLateScale>(a, s, out, tmem, idesc);
}

// Broken: the write after the fence goes to operand A.
__global__ void tc_late_operand_write(const float* a, const float* s, float* out, uint32_t tmem, uint32_t idesc) {
  body<kLateOperand>(a, s, out, tmem, idesc);  // expect: proxy-raw
}
