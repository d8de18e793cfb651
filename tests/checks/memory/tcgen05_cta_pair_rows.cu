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

constexpr uint32_t kPairM = 256, kPairN = 128, kRowBytes = 32;  // K = 16 BF16 elements per row
constexpr uint32_t kBytesA = kPairM / 2 * kRowBytes, kBytesB = kPairN / 2 * kRowBytes;
constexpr uint32_t kScaleOffset = kBytesA + kBytesB;

// UMMA::InstrDescriptor for kind::f16: F32 accumulator (bits 4-5), BF16 A
// and B (bits 7-9, 10-12), N >> 3 in bits 17-22, M >> 4 in bits 24-28.
constexpr uint32_t kIdesc = (1u << 4) | (1u << 7) | (1u << 10) | ((kPairN >> 3) << 17) | ((kPairM >> 4) << 24);

__device__ __forceinline__ uint64_t make_smem_desc(const void* p) {
  uint64_t a = static_cast<uint64_t>(__cvta_generic_to_shared(p));
  return ((a & 0x3FFFF) >> 4) | (uint64_t(8) << 16) | (uint64_t(16) << 32) | (uint64_t(1) << 46);
}

__device__ __forceinline__ void umma_pair(uint32_t tmem, uint64_t da, uint64_t db, uint32_t idesc) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
      "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem),
      "l"(da), "l"(db), "r"(idesc)
      : "memory");
}

enum LateWrite { kLateScale, kLateOperand };

template <LateWrite kLate>
__device__ __forceinline__ void body(const uint8_t* in, const float* scale, float* out, uint32_t tmem) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* tileA = smem;
  uint8_t* tileB = smem + kBytesA;
  float* scales = reinterpret_cast<float*>(smem + kScaleOffset);
  for (uint32_t i = threadIdx.x; i < kBytesA + kBytesB; i += blockDim.x) smem[i] = in[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (threadIdx.x < 128) {
    if (kLate == kLateScale) scales[threadIdx.x] = scale[threadIdx.x];
    else tileB[kBytesB - kRowBytes + threadIdx.x % kRowBytes] = 0;  // zero B's last row after the fence
  }
  __syncthreads();
  if (threadIdx.x == 0) umma_pair(tmem, make_smem_desc(tileA), make_smem_desc(tileB), kIdesc);
  out[threadIdx.x] = scales[threadIdx.x % 128];
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
