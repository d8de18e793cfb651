// The warp-specialized tcgen05 GEMM mainloop of the capture-word tests
// (mma_descriptor_bfe.cu, mma_descriptor_stage_step.cu, shfl_uniform_smem_base.cu): warp 0
// allocates tensor memory and stores a "capture" word into the shared buffer, warp 1 reads
// it back and loads A and B tiles into a ring of kStages stages, one lane of warp 2 runs the
// MMAs on the stages. The tests differ only in how the MMA warp builds its shared-memory
// descriptors (`Operands`) and in whether the buffer's base passes through a warp shuffle
// first; each writes its two kernels over this loop: the word after the ring (clean) and the
// word inside stage 1 of A (both findings real).
//
// `Operands ops(smem(buf))` is built once before the MMA loop; `ops.issue(tmem, s, later)`
// issues the MMAs of stage s (`later`: a K tile after the first, so its first MMA
// accumulates). The proxy-war expected at the loop's last barrier is each test's broken
// twin's: a test over this loop has one. Like Triton's kernels, the loop puts no
// tcgen05.fence around the __syncthreads() after the allocation (the MMAs follow it
// without ::after_thread_sync) and the one before the dealloc (the MMA thread's work
// precedes it without ::before_thread_sync, the dealloc follows it without
// ::after_thread_sync): tcgen05-fence in every kernel, twice per line for the two kernels of
// each test (issue 30, shape 6).
#pragma once

#include "../../proxy/Inputs/async_copy.cuh"

namespace capture_word {

using namespace proxy_test;

constexpr int kTileBytes = 16384;             // 128 x 64 halves
constexpr uint32_t kInstrDesc = 0x08200490u;  // f16 x f16 -> f32, M=128, N=128, K-major

// Where the capture word lives: after the ring (A stages, then B stages, then the full and
// empty barriers) in the clean kernel, the first word of A's stage 1 in the broken twin.
enum class Capture { AfterRing, InStage1 };

template <int kStages>
constexpr int kBarrierOffset = 2 * kStages * kTileBytes;

template <int kStages, Capture kWhere>
constexpr int kCaptureOffset = kWhere == Capture::AfterRing ? kBarrierOffset<kStages> + 2 * kStages * 8 : kTileBytes;

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

// Triton's descriptors (the subject of mma_descriptor_bfe.cu; shfl_uniform_smem_base.cu uses
// them too): per stage, the start-address field from the stage address with
// `bfe.u32 field, addr, 4, 15` (address >> 4), packed with `mov.b64 {lo, hi}` and stepped
// along K by adding to the low word.
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

template <int kStages>
struct BfeOperands {
  uint32_t base;
  __device__ explicit BfeOperands(uint32_t buf) : base(buf) {}
  __device__ void issue(const uint32_t& tmem, int s, bool later) const {
    const uint32_t a = descriptor_address_field(base + s * kTileBytes);
    const uint32_t b = descriptor_address_field(base + (kStages + s) * kTileBytes);
    for (int kk = 0; kk < 4; ++kk)  // four K=16 steps of 32 bytes: +2 in the field
      mma(tmem, descriptor(a + 2 * kk), descriptor(b + 2 * kk), later || kk > 0);
  }
};

// kUniformBase passes the buffer's base through `shfl.sync.idx` from lane 0 first, as the
// CuTe DSL's SmemAllocator does.
template <int kStages, class Operands, Capture kWhere, bool kUniformBase = false>
__device__ void mainloop(const uint8_t* a_src, const uint8_t* b_src, int k_tiles, uint32_t* out) {
  extern __shared__ __align__(1024) uint8_t raw[];
  __shared__ uint32_t tmem_base;
  uint8_t* buf = kUniformBase ? raw + (__shfl_sync(0xffffffffu, smem(raw), 0) - smem(raw)) : raw;
  uint64_t* full = reinterpret_cast<uint64_t*>(buf + kBarrierOffset<kStages>);
  uint64_t* empty = full + kStages;
  uint32_t* capture = reinterpret_cast<uint32_t*>(buf + kCaptureOffset<kStages, kWhere>);
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
  __syncthreads();  // expect-strict: tcgen05-fence, tcgen05-fence
  int s = 0;
  uint32_t phase = 0;
  if (warp == 1) {
    const int tiles = *capture;
    for (int k = 0; k < tiles; ++k) {
      mbar_wait(&empty[s], phase ^ 1);
      if (elect_one()) {
        mbar_arrive_expect_tx(&full[s], 2 * kTileBytes);
        // In the kernels with the word in stage 1, the producer read `*capture` in stage 1
        // before this refill of stage 1 (the copy begins at the word read), with no proxy
        // fence: the same thread's program order hands the read over, reported at the copy.
        bulk_load(buf + s * kTileBytes, a_src + size_t(k) * kTileBytes, kTileBytes, &full[s]);  // expect: proxy-war
        bulk_load(buf + (kStages + s) * kTileBytes, b_src + size_t(k) * kTileBytes, kTileBytes, &full[s]);
      }
      s = s + 1 == kStages ? 0 : s + 1;
      phase ^= s == 0;
    }
  } else if (warp == 2 && elect_one()) {
    const Operands ops(smem(buf));
    for (int k = 0; k < k_tiles; ++k) {
      mbar_wait(&full[s], phase);
      ops.issue(tmem_base, s, k > 0);  // expect-strict: tcgen05-fence, tcgen05-fence
      mma_commit(&empty[s]);
      s = s + 1 == kStages ? 0 : s + 1;
      phase ^= s == 0;
    }
  }
  // (No barrier between the producer's read of the word and its refill: this one comes after
  // every copy and hands nothing to them.)
  __syncthreads();  // expect-strict: tcgen05-fence, tcgen05-fence
  if (warp == 0) {
    out[blockIdx.x] = tmem_base;
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" ::"r"(tmem_base) : "memory");  // expect-strict: tcgen05-fence, tcgen05-fence
  }
}

}  // namespace capture_word
