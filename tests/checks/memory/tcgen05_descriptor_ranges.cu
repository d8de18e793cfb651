// Issue 11, shape 3 on sm_100a: tcgen05.mma reads its A and B operands
// through shared-memory descriptors (start address (addr & 0x3FFFF) >> 4 in
// bits 0-13, version bit 46) from one dynamic buffer: A [smem, smem+4096),
// B [smem+4096, smem+8192), then a scale buffer [smem+8192, smem+8704). The
// threads write the operands with plain stores and fence before the barrier;
// a write made after the fence is unfenced.
// The instruction descriptor is a kernel parameter here: M and N are not
// known, so an operand certainly reads only its rows at the smallest shape
// (A: M = 64, [smem, smem+2048); B: N = 8, [smem+4096, smem+4352)) and may
// read up to M = 128 and N = 256 rows (B up to smem+12288, over the scales).
//  - a write into A's first row: certainly read, proxy-raw (a warning);
//  - a write to the scales: read only if N > 128, which fenceline cannot
//    tell: proxy-raw in the strict tier (shown with --strict, as a note
//    saying the descriptor's N and M fields could not be decoded; issue 11:
//    not a warning that assumes the overlap; issue 29: the same-bytes link
//    is not decided).
//  - with the shared-memory descriptors themselves kernel parameters, a write
//    anywhere in shared memory is strict tier too: the descriptor could not
//    be decoded.
// tcgen05_runtime_idesc.cu has the form CUTLASS emits, a runtime descriptor
// whose N and M fields are constants, where the scale write draws nothing.
// RUN: %fenceline check --arch sm_100a --verify %s
// RUN: %fenceline check --strict --arch sm_100a --verify %s
// RUN: not %fenceline check --strict --arch sm_100a %s > %t 2>&1
// RUN: FileCheck %s < %t
// CHECK: tcgen05_descriptor_ranges.cu:{{[0-9]+}}:{{[0-9]+}}: note: shared memory written through the generic proxy may be read by the async proxy (tcgen05.mma operand) without fence.proxy.async: the operands' descriptors are not fully decoded [proxy-raw]
// CHECK: note: inlined from 'tc_late_scale_write(
// CHECK: note: the N and M fields of the instruction descriptor could not be decoded (M: 64 to 128 rows of A, N: 8 to 256 rows of B); the operands certainly read dynamic-shared[0, 2048), dynamic-shared[4096, 4352)
// CHECK: note: unfenced generic write of shared memory (st.shared), outside the bytes the operands certainly read
// CHECK: tcgen05_descriptor_ranges.cu:{{[0-9]+}}:{{[0-9]+}}: warning: shared memory written through the generic proxy is read by the async proxy (tcgen05.mma operand) without fence.proxy.async [proxy-raw]
// CHECK: note: inlined from 'tc_late_operand_write(
// CHECK: tcgen05_descriptor_ranges.cu:{{[0-9]+}}:{{[0-9]+}}: note: shared memory written through the generic proxy may be read by the async proxy (tcgen05.mma operand) without fence.proxy.async: the operands' descriptors are not fully decoded [proxy-raw]
// CHECK: note: inlined from 'tc_param_descriptors(
// CHECK: note: the shared-memory descriptor of operand A could not be decoded to a shared address; every write to shared memory may be an operand
// CHECK: 1 warning, 2 notes in 3 functions
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
    else tileA[threadIdx.x] = 0;  // zero the first row after the fence
  }
  __syncthreads();
  if (threadIdx.x == 0) umma_f16(tmem, make_smem_desc(tileA), make_smem_desc(tileB), idesc);
  out[threadIdx.x] = scales[threadIdx.x % 128];
}

// The write after the fence goes to the scale buffer, which B reads only if
// N > 128: a note, not a warning.
__global__ void tc_late_scale_write(const float* a, const float* s, float* out, uint32_t tmem, uint32_t idesc) {
  body<kLateScale>(a, s, out, tmem, idesc);  // expect-strict: proxy-raw
}

// Broken: the write after the fence goes to operand A.
__global__ void tc_late_operand_write(const float* a, const float* s, float* out, uint32_t tmem, uint32_t idesc) {
  body<kLateOperand>(a, s, out, tmem, idesc);  // expect: proxy-raw
}

// The shared-memory descriptors are kernel parameters: nothing relates them to
// a buffer, so the write after the fence (into A, here) may or may not be
// read: a note saying the descriptor could not be decoded.
__global__ void tc_param_descriptors(const float* a, uint64_t da, uint64_t db, uint32_t tmem, uint32_t idesc) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint16_t* tileA = reinterpret_cast<uint16_t*>(smem);
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x) tileA[i] = static_cast<uint16_t>(a[i]);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (threadIdx.x < 128) tileA[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x == 0) umma_f16(tmem, da, db, idesc);  // expect-strict: proxy-raw
}
