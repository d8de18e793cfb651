// Issue 11, shape 3, for a CTA pair: a `tcgen05.mma.cta_group::2` reads, from
// each CTA's shared memory, half of the instruction's M rows of A and half of
// its N rows of B (the pair splits A by M and B by N; the instruction
// descriptor's M and N fields count the whole pair's tile). Here M = 256 and
// N = 128: each CTA holds A as 128 rows [smem, smem+4096) and B as 64 rows
// [smem+4096, smem+6144), then a scale buffer [smem+6144, smem+6656) that the
// threads write after the fence and read back with ld.shared.
//  - the write after the fence goes to the scales: no proxy-raw (counted as
//    one CTA's rows, B would be 128 rows and reach them);
//  - it goes to B's last row: proxy-raw at the MMA.
// RUN: %fenceline check --arch sm_100a --verify %s
#include <cstdint>

#include "Inputs/tcgen05_late_write.cuh"

using namespace tcgen05_test;

constexpr uint32_t kPairM = 256, kPairN = 128, kRowBytes = 32;  // K = 16 BF16 elements per row
constexpr uint32_t kBytesA = kPairM / 2 * kRowBytes, kBytesB = kPairN / 2 * kRowBytes;

// UMMA::InstrDescriptor for kind::f16: F32 accumulator (bits 4-5), BF16 A
// and B (bits 7-9, 10-12), N >> 3 in bits 17-22, M >> 4 in bits 24-28.
constexpr uint32_t kIdesc = (1u << 4) | (1u << 7) | (1u << 10) | ((kPairN >> 3) << 17) | ((kPairM >> 4) << 24);

__device__ __forceinline__ void umma_pair(uint32_t tmem, uint64_t da, uint64_t db, uint32_t idesc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
      "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem),
      "l"(da), "l"(db), "r"(idesc)
      : "memory");
}

// The late operand write zeroes B's last row.
template <LateWrite kLate>
__device__ __forceinline__ void body(const uint8_t* in, const float* scale, float* out, uint32_t tmem) {
  stage_fence_write_mma<kLate, kBytesA, kBytesB, kRowBytes, kBytesB - kRowBytes>(
      in, scale, out, [&](uint64_t da, uint64_t db) { umma_pair(tmem, da, db, kIdesc); });
}

// Clean: the write after the fence goes to the scale buffer.
__global__ void __cluster_dims__(2, 1, 1) pair_late_scale_write(const uint8_t* in, const float* s, float* out,
                                                                uint32_t tmem) {
  body<kLateScale>(in, s, out, tmem);
}

// Broken: the write after the fence goes to operand B.
__global__ void __cluster_dims__(2, 1, 1) pair_late_operand_write(const uint8_t* in, const float* s, float* out,
                                                                  uint32_t tmem) {
  body<kLateOperand>(in, s, out, tmem);  // expect: proxy-raw
}
