// Issue 11, shape 3, transposed operands: a wgmma whose B operand is MN-major
// (imm-trans-b = 1), the layout Triton's flash-attention backward gives the dO
// stage of its dv product (tt_attention_bwd_sm90, docs/real-code.md "Corpus
// 8"). An MN-major tile with the 128-byte swizzle is laid out in atoms of 8 K
// rows of 128 bytes (64 bf16 of N): the stride byte offset (1024 here) steps
// along K, the leading byte offset along N. One m64n64k16 reads 2 groups of 8
// K rows: 2048 bytes, and the k-slices advance the descriptor by 2048 bytes
// through the 8192-byte stage. Read as a K-major tile (64 rows, 8 groups at the
// stride byte offset: 8192 bytes from each k-slice's start) the last slice
// seems to run 6 KB past the stage.
//
// One dynamic shared buffer holds the A ring (K-major), the B ring (MN-major),
// then a scratch that the consumers write with plain stores and read back with
// ld.shared (a layout conversion, as Triton's), then the mbarriers. Clean: the
// scratch lies after the B ring, no MMA reads it. Broken: the scratch is the
// tail of the B stage being read, written with no fence.proxy.async before the
// wgmma (proxy-raw) or before the stage's refill (proxy-war). Two descriptor
// forms: Triton's (the address field with bfe, or-ed with a constant high
// word) and a CuTe-style union.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/sm90_pipeline.cuh"

using namespace mt;

constexpr int kStages = 3;
constexpr uint32_t kTileBytes = 64 * 64 * 2;               // bf16 64x64 per operand per stage
constexpr uint32_t kAOffset = 0;                           // A ring [0, 24576)
constexpr uint32_t kBOffset = kStages * kTileBytes;        // B ring [24576, 49152)
constexpr uint32_t kScratchOffset = 2 * kStages * kTileBytes;  // float[1024] [49152, 53248)
constexpr uint32_t kBarOffset = kScratchOffset + 4096;     // full[3], empty[3]
constexpr uint32_t kSliceBytes = 2 * 8 * 128;              // one k16 slice of an MN-major 128B tile

enum DescForm { kTritonOr, kCuteUnion };
enum Scratch { kAfterRing, kInStageUnfenced };

// MN-major, 128-byte swizzle: layout type 1 (bits 62-63), stride byte offset
// 1024 >> 4 (bits 32-45), leading byte offset 0 (one atom along N).
__device__ __forceinline__ uint64_t mn_major_triton(const uint8_t* tile, int kslice) {
  uint32_t field;
  asm("bfe.u32 %0, %1, 4, 14;" : "=r"(field) : "r"(cast_smem_ptr_to_uint(tile)));
  field += kslice * (kSliceBytes >> 4);
  return uint64_t(field) | (uint64_t(1) << 62) | (uint64_t(1024 >> 4) << 32);
}

__device__ __forceinline__ uint64_t mn_major_cute(const uint8_t* tile, int kslice) {
  GmmaDescriptor desc;
  desc.desc_ = 0;
  desc.bitfield.start_address_ = static_cast<uint16_t>(cast_smem_ptr_to_uint(tile) >> 4);
  desc.bitfield.leading_byte_offset_ = 1;
  desc.bitfield.stride_byte_offset_ = 1024 >> 4;
  desc.bitfield.layout_type_ = 1;
  desc.reg32_[0] += kslice * (kSliceBytes >> 4);
  return desc.desc_;
}

template <DescForm kForm>
__device__ __forceinline__ uint64_t b_desc(const uint8_t* tile, int kslice) {
  if constexpr (kForm == kTritonOr) return mn_major_triton(tile, kslice);
  else return mn_major_cute(tile, kslice);
}

// m64n64k16, A K-major (trans-a 0), B MN-major (trans-b 1).
__device__ __forceinline__ void mma_b_transposed(uint64_t desc_a, uint64_t desc_b, Accum& c) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 1;\n\t}"
      : "+f"(c.d[0]), "+f"(c.d[1]), "+f"(c.d[2]), "+f"(c.d[3]), "+f"(c.d[4]), "+f"(c.d[5]), "+f"(c.d[6]),
        "+f"(c.d[7]), "+f"(c.d[8]), "+f"(c.d[9]), "+f"(c.d[10]), "+f"(c.d[11]), "+f"(c.d[12]), "+f"(c.d[13]),
        "+f"(c.d[14]), "+f"(c.d[15]), "+f"(c.d[16]), "+f"(c.d[17]), "+f"(c.d[18]), "+f"(c.d[19]),
        "+f"(c.d[20]), "+f"(c.d[21]), "+f"(c.d[22]), "+f"(c.d[23]), "+f"(c.d[24]), "+f"(c.d[25]),
        "+f"(c.d[26]), "+f"(c.d[27]), "+f"(c.d[28]), "+f"(c.d[29]), "+f"(c.d[30]), "+f"(c.d[31])
      : "l"(desc_a), "l"(desc_b)
      : "memory");
}

template <DescForm kForm, Scratch kScratch>
__device__ __forceinline__ void gemm(const void* map_a, const void* map_b, const float* src, float* out, int ktiles) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* a = smem + kAOffset;
  uint8_t* b = smem + kBOffset;
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kBarOffset);
  uint64_t* empty = full + kStages;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, t = threadIdx.x;
  if (t == 0) {
    for (int s = 0; s < kStages; ++s) {
      ClusterBarrier::init(full + s, 1);
      ClusterBarrier::init(empty + s, 4);
    }
    fence_barrier_init();
  }
  __syncthreads();
  if (warp == 4) {
    if (elect_one_sync()) {
      PipelineState<kStages> ps;
      for (int k = 0; k < ktiles; ++k, ++ps) {
        ClusterBarrier::wait(empty + ps.index(), ps.phase() ^ 1);
        ClusterTransactionBarrier::arrive_and_expect_tx(full + ps.index(), 2 * kTileBytes);
        SM90_TMA_LOAD_2D::copy(map_a, full + ps.index(), a + ps.index() * kTileBytes, 0, k * 64);
        SM90_TMA_LOAD_2D::copy(map_b, full + ps.index(), b + ps.index() * kTileBytes, k * 64, 0);
      }
    }
    return;
  }
  Accum c{};
  float total = 0.f;
  PipelineState<kStages> ps;
  for (int k = 0; k < ktiles; ++k, ++ps) {
    const int s = ps.index();
    ClusterBarrier::wait(full + s, ps.phase());
    // A layout conversion through shared memory (Triton's scratch): written
    // with plain stores, read back with ld.shared.
    float* scratch = kScratch == kAfterRing ? reinterpret_cast<float*>(smem + kScratchOffset)
                                            : reinterpret_cast<float*>(b + s * kTileBytes + 4096);
    scratch[t] = src[k * 128 + t];
    asm volatile("bar.sync 1, 128;" ::: "memory");
    total += scratch[(t + 1) % 128];
    warpgroup_arrive();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks)
      mma_b_transposed(desc_advance(make_gmma_desc(a + s * kTileBytes), ks * 64 * 16 * 2),
                       b_desc<kForm>(b + s * kTileBytes, ks), c);
    warpgroup_commit_batch();
    warpgroup_wait0();
    asm volatile("bar.sync 1, 128;" ::: "memory");
    if (lane == 0) ClusterBarrier::arrive(empty + s);
  }
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + t) * 32 + i] = c.d[i] * total;
}

// Clean: the scratch follows the B ring; the transposed B tile ends with its stage.
__global__ void mn_major_triton_scratch_after_ring(const void* ma, const void* mb, const float* src, float* out,
                                                   int kt) {
  gemm<kTritonOr, kAfterRing>(ma, mb, src, out, kt);
}
__global__ void mn_major_cute_scratch_after_ring(const void* ma, const void* mb, const float* src, float* out,
                                                 int kt) {
  gemm<kCuteUnion, kAfterRing>(ma, mb, src, out, kt);
}

// Broken: the scratch is the second half of the B stage the wgmma reads.
__global__ void mn_major_triton_scratch_in_stage(const void* ma, const void* mb, const float* src, float* out,
                                                 int kt) {
  gemm<kTritonOr, kInStageUnfenced>(ma, mb, src, out, kt);  // expect: proxy-raw, proxy-war
}
__global__ void mn_major_cute_scratch_in_stage(const void* ma, const void* mb, const float* src, float* out,
                                               int kt) {
  gemm<kCuteUnion, kInStageUnfenced>(ma, mb, src, out, kt);  // expect: proxy-raw, proxy-war
}
