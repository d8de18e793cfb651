// False positive once open (docs/real-code.md, "CuTe DSL"): shape found in the CuTe DSL 4.8 lowering of
// PyTorch's vendored Blackwell grouped GEMM (cute_torch_grouped_gemm_sm100, 6 stages). The MMA
// warp builds each tcgen05.mma shared-memory descriptor once per operand, for stage 0
// (start-address field `and.b32 (shr.u32 addr, 4), 0x3FC0`, widened and ORed with the
// constant upper fields), and reaches stage s by unpacking the low word (`mov.b64 {lo, hi}`),
// adding `s << 10` (s * 16384 bytes in 16-byte units) and repacking it. With a ring of two
// stages the memory analysis bounds the operand spans; with three or more (four here) it does
// not, the MMA is taken to read any shared byte, and the generic store of the capture word
// after the ring is reported (proxy-raw). Triton's form, the stage added to the address
// before `bfe` (mma_descriptor_bfe.cu), passes with any stage count. The twin stores the word
// inside stage 1 of A: both findings are real there.
// RUN: %fenceline check --arch sm_100a --verify %s
#include "../proxy/Inputs/async_copy.cuh"

using namespace proxy_test;

constexpr int kStages = 4;
constexpr int kTileBytes = 16384;  // 128 x 64 halves
constexpr int kRingBytes = 2 * kStages * kTileBytes;  // A stages, then B stages
constexpr int kBarrierOffset = kRingBytes;
constexpr int kCaptureOffset = kBarrierOffset + 2 * kStages * 8;
constexpr uint32_t kInstrDesc = 0x08200490u;  // f16 x f16 -> f32, M=128, N=128, K-major

// The descriptor of stage 0 as the CuTe DSL 4.8 lowers make_umma_desc for a 1024-byte-aligned
// tile: the start-address field is (address >> 4) & 0x3FC0, widened and ORed with the
// constant upper fields (layout, base offset, stride and leading-byte offsets).
__device__ __forceinline__ uint64_t stage0_descriptor(uint32_t address) {
  uint64_t desc;
  asm("{\n\t.reg .b32 shifted, field;\n\t.reg .b64 wide;\n\t"
      "shr.u32 shifted, %1, 4;\n\tand.b32 field, shifted, 16320;\n\t"
      "cvt.u64.u32 wide, field;\n\tor.b64 %0, wide, 4611756662049538048;\n\t}"
      : "=l"(desc)
      : "r"(address));
  return desc;
}

// Stage s, K step kk: the DSL unpacks the low word, adds the offsets in 16-byte units and
// repacks it with the unchanged high word.
__device__ __forceinline__ uint64_t step(uint64_t desc, uint32_t offset16) {
  uint64_t out;
  asm("{\n\t.reg .b32 lo, hi;\n\tmov.b64 {lo, hi}, %1;\n\tadd.s32 lo, lo, %2;\n\tmov.b64 %0, {lo, hi};\n\t}"
      : "=l"(out)
      : "l"(desc), "r"(offset16));
  return out;
}

__device__ __forceinline__ void mma(uint32_t tmem, uint64_t a, uint64_t b, bool accumulate) {
  asm volatile(
      "{\n\t.reg .pred acc;\n\tsetp.ne.b32 acc, %4, 0;\n\t"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, acc;\n\t}" ::"r"(tmem),
      "l"(a), "l"(b), "r"(kInstrDesc), "r"(int(accumulate))
      : "memory");
}

__device__ __forceinline__ void mma_commit(uint64_t* bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem(bar))
               : "memory");
}

// Warp 0 stores the capture word, warp 1 loads A and B tiles into the ring, warp 2 (one lane)
// runs the MMAs; kCapture is where the capture word lives.
template <int kCapture>
__device__ void mainloop(const uint8_t* a_src, const uint8_t* b_src, int k_tiles, uint32_t* out) {
  extern __shared__ __align__(1024) uint8_t buf[];
  __shared__ uint32_t tmem_base;
  uint64_t* full = reinterpret_cast<uint64_t*>(buf + kBarrierOffset);
  uint64_t* empty = full + kStages;
  uint32_t* capture = reinterpret_cast<uint32_t*>(buf + kCapture);
  const int warp = threadIdx.x / 32;
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;" ::"r"(smem(&tmem_base))
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    if (threadIdx.x == 0) {
      for (int s = 0; s < kStages; ++s) {
        mbar_init(&full[s], 1);
        mbar_init(&empty[s], 1);
      }
      mbar_init_fence();
      *capture = k_tiles;  // generic write: after the ring in the clean kernel
    }
  }
  __syncthreads();
  int s = 0;
  uint32_t phase = 0;
  if (warp == 1) {
    const int tiles = *capture;
    for (int k = 0; k < tiles; ++k) {
      mbar_wait(&empty[s], phase ^ 1);
      if (elect_one()) {
        mbar_arrive_expect_tx(&full[s], 2 * kTileBytes);
        bulk_load(buf + s * kTileBytes, a_src + size_t(k) * kTileBytes, kTileBytes, &full[s]);
        bulk_load(buf + (kStages + s) * kTileBytes, b_src + size_t(k) * kTileBytes, kTileBytes, &full[s]);
      }
      s = s + 1 == kStages ? 0 : s + 1;
      phase ^= s == 0;
    }
  } else if (warp == 2 && elect_one()) {
    const uint64_t a0 = stage0_descriptor(smem(buf));
    const uint64_t b0 = stage0_descriptor(smem(buf) + kStages * kTileBytes);
    for (int k = 0; k < k_tiles; ++k) {
      mbar_wait(&full[s], phase);
      for (int kk = 0; kk < 4; ++kk)  // stage s: + s * 16384 bytes; K=16 steps of 32 bytes
        mma(tmem_base, step(a0, (s << 10) + 2 * kk), step(b0, (s << 10) + 2 * kk), k > 0 || kk > 0);
      mma_commit(&empty[s]);
      s = s + 1 == kStages ? 0 : s + 1;
      phase ^= s == 0;
    }
  }
  // Broken twin only: the producer read `*capture` in stage 1 before its own refill of stage 1
  // (the copy begins at the word read), with no proxy fence; reported at this barrier.
  __syncthreads();  // expect: proxy-war
  if (warp == 0) {
    out[blockIdx.x] = tmem_base;
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" ::"r"(tmem_base) : "memory");
  }
}

// Clean: the capture word follows the barriers, after the ring.
__global__ void capture_after_ring(const uint8_t* a, const uint8_t* b, int k_tiles, uint32_t* out) {
  mainloop<kCaptureOffset>(a, b, k_tiles, out);
}

// Broken twin: the capture word is the first word of A's stage 1, read by the MMA and
// refilled by the producer with no proxy fence after the generic store.
__global__ void capture_in_stage1(const uint8_t* a, const uint8_t* b, int k_tiles, uint32_t* out) {
  mainloop<kTileBytes>(a, b, k_tiles, out);  // expect: proxy-war, proxy-raw
}
