// Open false positive (docs/real-code.md, "descriptor built with bfe"): shape found in every
// sm_100 Triton 3.9 kernel of the corpus (tt_*_sm100). The MMA warp builds the shared-memory
// descriptors of `tcgen05.mma` from the stage addresses with `bfe.u32 lo, addr, 4, 15` (the
// start-address field, address >> 4), packs them with `mov.b64 {lo, hi}` and steps along K by
// adding to the low word. The only generic writes of the buffer are a word that the default
// warp stores after the ring for the producer (a value Triton "captures" into a partition)
// and that the producer reads back. The MMA reads only the stages, so no proxy fence is needed
// for that word. The checker once neither decoded the bfe-built descriptor nor bounded the
// stage index, and reports the word's store as read by the MMA (proxy-raw) and as overwritten
// by the refill (proxy-war). The twin stores the word inside stage 1 of A: both are real.
// The mainloop (and Triton's bfe descriptors) is Inputs/capture_word_mainloop.cuh.
// RUN: %fenceline check --arch sm_100a --verify %s
// RUN: %fenceline check --strict --arch sm_100a --verify %s
#include "Inputs/capture_word_mainloop.cuh"

using namespace capture_word;

constexpr int kStages = 2;

// Clean: the capture word follows the barriers, after the ring.
__global__ void capture_after_ring(const uint8_t* a, const uint8_t* b, int k_tiles, uint32_t* out) {
  mainloop<kStages, BfeOperands<kStages>, Capture::AfterRing>(a, b, k_tiles, out);
}

// Broken twin: the capture word is the first word of A's stage 1, read by the MMA and
// refilled by the producer with no proxy fence after the generic store.
__global__ void capture_in_stage1(const uint8_t* a, const uint8_t* b, int k_tiles, uint32_t* out) {
  mainloop<kStages, BfeOperands<kStages>, Capture::InStage1>(a, b, k_tiles, out);  // expect: proxy-war, proxy-raw
}
