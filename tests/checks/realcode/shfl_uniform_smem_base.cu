// False positive once open (docs/real-code.md, "CuTe DSL"): shape found in the CuTe DSL 4.8 lowering of
// PyTorch's vendored Blackwell grouped GEMM (cute_torch_grouped_gemm_sm100). The DSL makes the
// shared-memory base warp-uniform before carving its buffers out of it
// (`mov.b32 %r, __dynamic_shmem__0; shfl.sync.idx.b32 %base, %r, 0, 31, -1`), so every
// shared address of the kernel (barriers, tile-scheduler words, tensor maps, the TMA ring)
// is `%base + offset`. A shuffle from lane 0 of a value every lane holds is that value, but
// the memory analysis does not see through it: each address loses its base and may alias
// any other, and the generic accesses of small buffers placed before the ring are taken as
// overwritten by the TMA refills (proxy-war) and read by the MMA (proxy-raw). This kernel is
// mma_descriptor_bfe.cu (which passes) with its base passed through the same shuffle. The twin
// stores the word inside stage 1 of A: both findings are real there.
// The mainloop (and Triton's bfe descriptors) is Inputs/capture_word_mainloop.cuh.
// RUN: %fenceline check --arch sm_100a --verify %s
// RUN: %fenceline check --strict --arch sm_100a --verify %s
#include "Inputs/capture_word_mainloop.cuh"

using namespace capture_word;

constexpr int kStages = 2;
constexpr bool kUniformBase = true;  // the DSL's warp-uniform base, the subject here

// Clean: the capture word follows the barriers, after the ring.
__global__ void capture_after_ring(const uint8_t* a, const uint8_t* b, int k_tiles, uint32_t* out) {
  mainloop<kStages, BfeOperands<kStages>, Capture::AfterRing, kUniformBase>(a, b, k_tiles, out);
}

// Broken twin: the capture word is the first word of A's stage 1, read by the MMA and
// refilled by the producer with no proxy fence after the generic store.
__global__ void capture_in_stage1(const uint8_t* a, const uint8_t* b, int k_tiles, uint32_t* out) {
  mainloop<kStages, BfeOperands<kStages>, Capture::InStage1, kUniformBase>(a, b, k_tiles, out);  // expect: proxy-war, proxy-raw
}
