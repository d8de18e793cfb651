// Issue 11, shape 3, in the form CUTLASS's block-scaled SM100 kernels use: the
// tcgen05 instruction descriptor is built at run time, as
// UMMA::make_runtime_instr_desc_block_scaled does: a constant bitfield union
// (M = 128, N = 64, E4M3 operands, E8M0 scales) with the scale-factor ids
// taken from the top two bits of the scale factors' tensor-memory addresses
// (a_sf_id bits 29-30, b_sf_id bits 4-5), shifted into the upper word of a
// 64-bit value and handed to the MMA as its upper half. The N and M fields
// (bits 17-22 and 24-28) stay constant, so the operands are exact: A (128
// rows) [smem, smem+4096), B (64 rows) [smem+4096, smem+6144), then the
// scale buffer [smem+6144, smem+6656) that the threads write after the fence
// and read back with ld.shared.
//  - the write after the fence goes to the scales: no proxy-raw (with the
//    descriptor undecoded B could be 256 rows and reach them);
//  - it goes to B's first row: proxy-raw at the MMA.
// RUN: %fenceline check --arch sm_100a --verify %s
#include <cstdint>

constexpr uint32_t kRowsA = 128, kRowsB = 64, kRowBytes = 32;  // K = 32 E4M3 elements per row
constexpr uint32_t kBytesA = kRowsA * kRowBytes, kBytesB = kRowsB * kRowBytes;
constexpr uint32_t kScaleOffset = kBytesA + kBytesB;

// CUTLASS's UMMA::InstrDescriptorBlockScaled (cute/arch/mma_sm100_desc.hpp).
union BlockScaledIdesc {
  uint32_t desc;
  struct {
    uint16_t sparse_id2 : 2, sparse_flag : 1, : 1, b_sf_id : 2, : 1, a_format : 3, b_format : 3, a_negate : 1,
        b_negate : 1, a_major : 1;
    uint16_t b_major : 1, n_dim : 6, scale_format : 1, m_dim : 5, a_sf_id : 2, k_size : 1;
  };
};

__device__ __forceinline__ BlockScaledIdesc make_idesc(uint32_t m, uint32_t n) {
  BlockScaledIdesc d{};
  d.a_format = 0;      // E4M3
  d.b_format = 0;      // E4M3
  d.scale_format = 1;  // E8M0
  d.n_dim = n >> 3;
  d.m_dim = m >> 4;
  return d;
}

// make_runtime_instr_desc_block_scaled: the scale-factor ids come from the
// tensor-memory addresses of the scale factors.
__device__ __forceinline__ uint64_t make_runtime_idesc(BlockScaledIdesc d, uint32_t tsfa, uint32_t tsfb) {
  d.a_sf_id = (tsfa & 0xC0000000) >> 30;
  d.b_sf_id = (tsfb & 0xC0000000) >> 30;
  return static_cast<uint64_t>(d.desc) << 32;
}

__device__ __forceinline__ uint64_t make_smem_desc(const void* p) {
  uint64_t a = static_cast<uint64_t>(__cvta_generic_to_shared(p));
  return ((a & 0x3FFFF) >> 4) | (uint64_t(8) << 16) | (uint64_t(16) << 32) | (uint64_t(1) << 46);
}

// SM100_MMA_MXF8F6F4_SS::fma: the descriptor's upper half goes to the MMA.
__device__ __forceinline__ void umma_mxf8(uint32_t tmem, uint64_t da, uint64_t db, uint64_t idescE, uint32_t tsfa,
                                          uint32_t tsfb) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%0], %1, %2, %3, [%4], [%5], p;\n\t}" ::"r"(tmem),
      "l"(da), "l"(db), "r"(uint32_t(idescE >> 32)), "r"(tsfa), "r"(tsfb)
      : "memory");
}

enum LateWrite { kLateScale, kLateOperand };

template <LateWrite kLate>
__device__ __forceinline__ void body(const uint8_t* in, const float* scale, float* out, uint32_t tmem, uint32_t tsfa,
                                     uint32_t tsfb) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* tileA = smem;
  uint8_t* tileB = smem + kBytesA;
  float* scales = reinterpret_cast<float*>(smem + kScaleOffset);
  for (uint32_t i = threadIdx.x; i < kBytesA + kBytesB; i += blockDim.x) smem[i] = in[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (threadIdx.x < 128) {
    if (kLate == kLateScale) scales[threadIdx.x] = scale[threadIdx.x];
    else tileB[threadIdx.x % kRowBytes] = 0;  // zero B's first row after the fence
  }
  __syncthreads();
  const uint64_t idesc = make_runtime_idesc(make_idesc(kRowsA, kRowsB), tsfa, tsfb);
  if (threadIdx.x == 0) umma_mxf8(tmem, make_smem_desc(tileA), make_smem_desc(tileB), idesc, tsfa, tsfb);
  out[threadIdx.x] = scales[threadIdx.x % 128];
}

// Clean: the write after the fence goes to the scale buffer.
__global__ void bs_late_scale_write(const uint8_t* in, const float* s, float* out, uint32_t tmem, uint32_t tsfa,
                                    uint32_t tsfb) {
  body<kLateScale>(in, s, out, tmem, tsfa, tsfb);
}

// Broken: the write after the fence goes to operand B.
__global__ void bs_late_operand_write(const uint8_t* in, const float* s, float* out, uint32_t tmem, uint32_t tsfa,
                                      uint32_t tsfb) {
  body<kLateOperand>(in, s, out, tmem, tsfa, tsfb);  // expect: proxy-raw
}
