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
// RUN: %fenceline check --arch sm_100a --verify %s
#include "../proxy/Inputs/async_copy.cuh"

using namespace proxy_test;

constexpr int kStages = 2;
constexpr int kTileBytes = 16384;  // 128 x 64 halves
constexpr int kRingBytes = 2 * kStages * kTileBytes;  // A stages, then B stages
constexpr int kBarrierOffset = kRingBytes;
constexpr int kCaptureOffset = kBarrierOffset + 2 * kStages * 8;
constexpr uint32_t kInstrDesc = 0x08200490u;  // f16 x f16 -> f32, M=128, N=128, K-major

// Start-address field of a shared-memory descriptor, as Triton's lowering extracts it.
__device__ __forceinline__ uint32_t descriptor_address_field(uint32_t address) {
  uint32_t field;
  asm("bfe.u32 %0, %1, 4, 15;" : "=r"(field) : "r"(address));
  return field;
}

__device__ __forceinline__ uint64_t descriptor(uint32_t address_field) {
  uint64_t desc;
  asm("mov.b64 %0, {%1, %2};" : "=l"(desc) : "r"(address_field), "r"(0x40004040u));
  return desc;
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
    const uint32_t base = smem(buf);
    for (int k = 0; k < k_tiles; ++k) {
      mbar_wait(&full[s], phase);
      const uint32_t a = descriptor_address_field(base + s * kTileBytes);
      const uint32_t b = descriptor_address_field(base + (kStages + s) * kTileBytes);
      for (int kk = 0; kk < 4; ++kk)  // four K=16 steps of 32 bytes: +2 in the field
        mma(tmem_base, descriptor(a + 2 * kk), descriptor(b + 2 * kk), k > 0 || kk > 0);
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
