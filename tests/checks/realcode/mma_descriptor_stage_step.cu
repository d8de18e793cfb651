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
// The mainloop (and Triton's bfe descriptors) is Inputs/capture_word_mainloop.cuh.
// RUN: %fenceline check --arch sm_100a --verify %s
// RUN: %fenceline check --strict --arch sm_100a --verify %s
#include "Inputs/capture_word_mainloop.cuh"

using namespace capture_word;

constexpr int kStages = 4;

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

// The CuTe DSL's form: the stage-0 descriptors once, stepped to stage s in the loop.
struct SteppedOperands {
  uint64_t a0, b0;
  __device__ explicit SteppedOperands(uint32_t buf)
      : a0(stage0_descriptor(buf)), b0(stage0_descriptor(buf + kStages * kTileBytes)) {}
  __device__ void issue(const uint32_t& tmem, int s, bool later) const {
    for (int kk = 0; kk < 4; ++kk)  // stage s: + s * 16384 bytes; K=16 steps of 32 bytes
      mma(tmem, step(a0, (s << 10) + 2 * kk), step(b0, (s << 10) + 2 * kk), later || kk > 0);
  }
};

// Clean: the capture word follows the barriers, after the ring.
__global__ void capture_after_ring(const uint8_t* a, const uint8_t* b, int k_tiles, uint32_t* out) {
  mainloop<kStages, SteppedOperands, Capture::AfterRing>(a, b, k_tiles, out);
}

// Broken twin: the capture word is the first word of A's stage 1, read by the MMA and
// refilled by the producer with no proxy fence after the generic store.
__global__ void capture_in_stage1(const uint8_t* a, const uint8_t* b, int k_tiles, uint32_t* out) {
  mainloop<kStages, SteppedOperands, Capture::InStage1>(a, b, k_tiles, out);  // expect: proxy-war, proxy-raw
}
