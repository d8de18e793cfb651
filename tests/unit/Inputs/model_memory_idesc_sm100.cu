// tcgen05.mma instruction descriptors for the unit tests of the matrix
// descriptor decoding (model/MatrixDescriptors.h): a constant descriptor, a
// kernel parameter, CUTLASS's runtime block-scaled form (constant N and M,
// scale-factor ids ORed in from tensor-memory addresses), and a choice of two
// N values. Compiled for sm_100a (the _sm100 suffix, tests/CMakeLists.txt).
#include <cstdint>

constexpr uint32_t kOperandBytes = 4096;

__device__ __forceinline__ uint64_t make_smem_desc(const void* p) {
  uint64_t a = static_cast<uint64_t>(__cvta_generic_to_shared(p));
  return ((a & 0x3FFFF) >> 4) | (uint64_t(8) << 16) | (uint64_t(16) << 32) | (uint64_t(1) << 46);
}

// kind::f16, bf16 operands, f32 accumulator: N >> 3 at bit 17, M >> 4 at bit 24.
__host__ __device__ constexpr uint32_t f16_idesc(uint32_t m, uint32_t n) {
  return (1u << 4) | (1u << 7) | (1u << 10) | ((n >> 3) << 17) | ((m >> 4) << 24);
}

__device__ __forceinline__ void umma_f16(uint32_t tmem, uint64_t da, uint64_t db, uint32_t idesc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem),
      "l"(da), "l"(db), "r"(idesc)
      : "memory");
}

__device__ __forceinline__ void mma_from(uint32_t tmem, uint32_t idesc) {
  extern __shared__ __align__(1024) uint8_t smem[];
  umma_f16(tmem, make_smem_desc(smem), make_smem_desc(smem + kOperandBytes), idesc);
}

__global__ void idesc_constant(uint32_t tmem) { mma_from(tmem, f16_idesc(128, 64)); }

__global__ void idesc_param(uint32_t tmem, uint32_t idesc) { mma_from(tmem, idesc); }

// N = 64 or N = 128 by a runtime flag: N >> 3 is 8 or 16, so bits 0-2 and 5
// of the field are known zero and N is at most 0b011000 << 3 = 192.
__global__ void idesc_selected(uint32_t tmem, int wide) {
  mma_from(tmem, wide ? f16_idesc(128, 128) : f16_idesc(128, 64));
}

// CUTLASS UMMA::make_runtime_instr_desc_block_scaled: a constant descriptor
// (M = 128, N = 64) with a_sf_id (bits 29-30) and b_sf_id (bits 4-5) from the
// top bits of the scale factors' tensor-memory addresses, in the upper word of
// a 64-bit value whose upper half the MMA takes.
__device__ __forceinline__ uint64_t runtime_block_scaled(uint32_t tsfa, uint32_t tsfb) {
  uint32_t d = (1u << 23) | ((64u >> 3) << 17) | ((128u >> 4) << 24);
  d |= ((tsfa & 0xC0000000u) >> 30) << 29;
  d |= ((tsfb & 0xC0000000u) >> 30) << 4;
  return static_cast<uint64_t>(d) << 32;
}

__global__ void idesc_block_scaled(uint32_t tmem, uint32_t tsfa, uint32_t tsfb) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint64_t idescE = runtime_block_scaled(tsfa, tsfb);
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%0], %1, %2, %3, [%4], [%5], p;\n\t}" ::"r"(tmem),
      "l"(make_smem_desc(smem)), "l"(make_smem_desc(smem + kOperandBytes)), "r"(uint32_t(idescE >> 32)),
      "r"(tsfa), "r"(tsfb)
      : "memory");
}
