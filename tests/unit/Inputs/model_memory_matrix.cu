// More wgmma descriptor forms for the memory-analysis unit tests (issue 11,
// shape 3): operands in static shared arrays (objects named by symbol), the
// start-address field (a >> 4) & 0x3FFF of an address nvcc cannot prove
// 1024-aligned (shr + and 16383), and a descriptor assembled from two 32-bit
// halves (a union, as CUTLASS's GmmaDescriptor: mov.b64 %rd, {lo, hi}).
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ uint64_t field_desc(const void* p) {
  const uint32_t a = smem_u32(p);
  return uint64_t((a >> 4) & 0x3FFF) | (uint64_t(128 >> 4) << 16) | (uint64_t(256 >> 4) << 32);
}

union Halves {
  uint64_t desc;
  uint32_t reg32[2];
};
__device__ __forceinline__ uint64_t halves_desc(const void* p) {
  Halves h;
  h.reg32[0] = ((smem_u32(p) >> 4) & 0x3FFF) | ((128 >> 4) << 16);
  h.reg32[1] = 256 >> 4;
  return h.desc;
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

// A: static array (2048 bytes, 16-byte aligned only), B: another, at a runtime
// k-slice offset (kslice & 1) * 1024. Facts: A's operand is shared:A from 0,
// B's is shared:B from [0, 1024]; the st.shared to `other` is NoAlias with
// both; a st.shared into B (B row 0) MayAlias B's operand.
extern "C" __global__ void desc_static_tiles(const float* src, float* out, int kslice) {
  __shared__ __align__(16) uint16_t A[64 * 16];
  __shared__ __align__(16) uint16_t B[2 * 64 * 16];
  __shared__ float other[128];
  other[threadIdx.x & 127] = src[threadIdx.x];
  B[threadIdx.x & 63] = static_cast<uint16_t>(threadIdx.x);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[32] = {};
  mma(field_desc(A), halves_desc(B + (kslice & 1) * 512), d);
  asm volatile("wgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i] + other[(threadIdx.x + 1) & 127];
}

// A K-major tile without swizzle whose 8-row groups are contiguous (stride
// byte offset 128) and whose two k core matrices are 1024 bytes apart
// (leading byte offset 1024): core matrix (group g, k) at g * 128 + k * 1024,
// so the 64x16 bf16 operand spans [0, 2048) although 8 groups * SBO = 1024.
// The st.shared into A's bytes [1536, 1664) writes what the MMA reads.
__device__ __forceinline__ uint64_t leading_desc(const void* p) {
  const uint32_t a = smem_u32(p);
  return uint64_t((a >> 4) & 0x3FFF) | (uint64_t(1024 >> 4) << 16) | (uint64_t(128 >> 4) << 32);
}
extern "C" __global__ void desc_leading_offset(float* out) {
  __shared__ __align__(128) uint16_t A[64 * 16];
  __shared__ __align__(128) uint16_t B[64 * 16];
  A[768 + (threadIdx.x & 63)] = static_cast<uint16_t>(threadIdx.x);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[32] = {};
  mma(leading_desc(A), leading_desc(B), d);
  asm volatile("wgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i];
}

// m64n64k16 with B MN-major (imm-trans-b 1): Triton's transposed operands.
__device__ __forceinline__ void mma_b_mn_major(uint64_t da, uint64_t db, float (&d)[32]) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 1;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db)
      : "memory");
}

// MN-major descriptors: layout type in bits 62-63, the offsets >> 4.
__device__ __forceinline__ uint64_t mn_desc(const void* p, uint64_t layout, uint32_t lbo, uint32_t sbo) {
  const uint32_t a = smem_u32(p);
  return uint64_t((a >> 4) & 0x3FFF) | (uint64_t(lbo >> 4) << 16) | (uint64_t(sbo >> 4) << 32) | (layout << 62);
}

// B MN-major with the 128-byte swizzle: 64 bf16 of N are one 128-byte atom
// row, 8 K rows an atom (1024 bytes), the two groups of 8 K rows of k16 at the
// stride byte offset 1024: the operand is B's bytes [0, 2048), not the 8192 a
// K-major reading (8 groups of 8 rows at SBO) gives. The store into B + 1024
// is read; the store into B + 2048 is not.
extern "C" __global__ void desc_mn_major_sw128(float* out) {
  __shared__ __align__(1024) uint16_t A[64 * 16];
  __shared__ __align__(1024) uint16_t B[4 * 64 * 16];
  B[512 + (threadIdx.x & 63)] = static_cast<uint16_t>(threadIdx.x);
  B[1024 + (threadIdx.x & 63)] = static_cast<uint16_t>(threadIdx.x);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[32] = {};
  mma_b_mn_major(mn_desc(A, 0, 128, 256), mn_desc(B, 1, 0, 1024), d);
  asm volatile("wgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i];
}

// B MN-major with the 64-byte swizzle: 64 bf16 of N are two 64-byte atoms,
// side by side at the leading byte offset 1024; the second group of 8 K rows
// is the stride byte offset 512 further: atoms at 0, 512, 1024, 1536, each
// 8 x 64 bytes, so the operand is [0, 2048) (a K-major reading: 4736 bytes).
extern "C" __global__ void desc_mn_major_sw64(float* out) {
  __shared__ __align__(1024) uint16_t A[64 * 16];
  __shared__ __align__(1024) uint16_t B[4 * 64 * 16];
  B[768 + (threadIdx.x & 63)] = static_cast<uint16_t>(threadIdx.x);
  B[1024 + (threadIdx.x & 63)] = static_cast<uint16_t>(threadIdx.x);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[32] = {};
  mma_b_mn_major(mn_desc(A, 0, 128, 256), mn_desc(B, 2, 1024, 512), d);
  asm volatile("wgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i];
}
