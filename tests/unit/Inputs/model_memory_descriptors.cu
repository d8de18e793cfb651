// wgmma shared-memory descriptors for the memory-analysis unit tests (issue 11,
// shape 3). Layout of the dynamic buffer: A stages [smem, smem+3*8192), B
// stages [smem+24576, smem+49152), scales float[128] at [smem+49152,
// smem+49664). The descriptor's start-address field (bits 0-13) is
// (address >> 4) & 0x3FFF; the analysis decodes it back to the operand's
// shared address (<< 4) and reads the operand extent (8 rows x 2 cores per
// k16 slice of a 64x16 bf16 operand: 2048 bytes) from the MMA shape.
#include <cstdint>

constexpr uint32_t kTile = 8192;
constexpr uint32_t kB = 3 * kTile;
constexpr uint32_t kScales = 6 * kTile;

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

union Desc {
  uint64_t desc;
  uint32_t reg32[2];
  struct {
    uint16_t start_address : 14, : 2;
    uint16_t leading_byte_offset : 14, : 2;
    uint16_t stride_byte_offset : 14, : 2;
    uint8_t : 1, base_offset : 3, : 4;
    uint8_t : 6, layout_type : 2;
  } bits;
};

__device__ __forceinline__ uint64_t union_desc(const void* p) {
  Desc d;
  d.desc = 0;
  d.bits.start_address = static_cast<uint16_t>(smem_u32(p) >> 4);
  d.bits.leading_byte_offset = 128 >> 4;
  d.bits.stride_byte_offset = 256 >> 4;
  return d.desc;
}
__device__ __forceinline__ uint64_t mask_desc(const void* p) {
  uint64_t a = smem_u32(p);
  return ((a & 0x3FFFF) >> 4) | (uint64_t(128 >> 4) << 16) | (uint64_t(256 >> 4) << 32);
}

__device__ __forceinline__ void mma(uint64_t da, uint64_t db, float (&d)[32]) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db)
      : "memory");
}

__device__ __forceinline__ void store_out(float* out, const float (&d)[32], float x) {
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i] + x;
}

// Bitfield-union descriptors of stage s = k % 3 (unsigned): A operand starts
// at smem + s*8192, B at smem + 24576 + s*8192, both within their rings; the
// st.shared to scales[tid] writes [smem+49152 + 4*tid, +4), tid < 128: NoAlias
// with either operand.
extern "C" __global__ void desc_union_stage(const float* scale_src, float* out, unsigned ktiles) {
  extern __shared__ __align__(1024) uint8_t smem[];
  float d[32] = {};
  float* scales = reinterpret_cast<float*>(smem + kScales);
  float x = 0.f;
#pragma unroll 1
  for (unsigned k = 0; k < ktiles; ++k) {
    const unsigned s = k % 3u;
    scales[threadIdx.x & 127] = scale_src[k * 128 + threadIdx.x];
    __syncthreads();
    x += scales[(threadIdx.x + 1) & 127];
    mma(union_desc(smem + s * kTile), union_desc(smem + kB + s * kTile), d);
    asm volatile("wgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;" ::: "memory");
    __syncthreads();
  }
  store_out(out, d, x);
}

// Mask-and-shift descriptors advanced over four k16 slices (+2048 bytes each,
// the DescriptorIterator form: add (2048 >> 4) = 128 to the low word): slice j
// of A reads [smem + j*2048, +2048); the four slices cover [smem, smem+8192).
extern "C" __global__ void desc_mask_slices(float* out) {
  extern __shared__ __align__(1024) uint8_t smem[];
  float d[32] = {};
  const uint64_t a0 = mask_desc(smem), b0 = mask_desc(smem + kB);
#pragma unroll
  for (int j = 0; j < 4; ++j) mma(a0 + j * (2048 >> 4), b0 + j * (2048 >> 4), d);
  asm volatile("wgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;" ::: "memory");
  store_out(out, d, 0.f);
}

// A descriptor read from global memory (a precomputed table): it cannot be
// decoded; the analysis says so (a note), and its operand range is unknown.
extern "C" __global__ void desc_from_memory(const uint64_t* descs, float* out) {
  float d[32] = {};
  mma(descs[0], descs[1], d);
  asm volatile("wgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;" ::: "memory");
  store_out(out, d, 0.f);
}
