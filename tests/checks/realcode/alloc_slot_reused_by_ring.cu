// True positive once missed (docs/real-code.md, true positive 6): shape found in Triton 3.9's sm_100
// matmul kernels (tt_matmul_ws_sm100, tt_persistent_matmul_ws_sm100). `tcgen05.alloc` writes the
// tensor-memory address into a shared word, every thread reads it once (`ld.shared`), and
// Triton's shared-memory allocator, the word's lifetime over, gives the same bytes to stage 0
// of the operand ring: the producer's first TMA fill overwrites the word. A generic read
// followed by an async-proxy write of the same bytes needs a fence.proxy.async on the path
// (ordering-rules.md, proxy-war); the matmul's producer has none. The checker's "read before
// the first fill is not a hand-off" exemption once hid the hazard; it no longer applies when
// the copy provably begins at the word read (MemoryAnalysis::copyMayBeginAt: stage 0 starts
// at the slot's address). The twin fences in the producer after the barrier and is clean.
// RUN: %fenceline check --arch sm_100a --verify %s
#include "../proxy/Inputs/async_copy.cuh"

using namespace proxy_test;

constexpr int kStages = 2;
constexpr int kStageBytes = 16384;
constexpr int kBarrierOffset = kStages * kStageBytes;

template <bool kProducerFences>
__device__ void mainloop(const uint8_t* src, uint8_t* dst, uint32_t* out, int tiles) {
  extern __shared__ __align__(1024) uint8_t buf[];
  uint32_t* tmem_slot = reinterpret_cast<uint32_t*>(buf);  // reused by stage 0 afterwards
  uint64_t* full = reinterpret_cast<uint64_t*>(buf + kBarrierOffset);
  uint64_t* empty = full + kStages;
  const int warp = threadIdx.x / 32;
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;" ::"r"(smem(tmem_slot))
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    if (threadIdx.x == 0) {
      for (int s = 0; s < kStages; ++s) {
        mbar_init(&full[s], 1);
        mbar_init(&empty[s], 1);
      }
      mbar_init_fence();
    }
  }
  __syncthreads();
  const uint32_t tmem = *reinterpret_cast<volatile uint32_t*>(tmem_slot);  // every thread reads it
  __syncthreads();
  int s = 0;
  uint32_t phase = 0;
  if (warp == 1) {
    if (kProducerFences) fence_proxy_async_cta();
    for (int k = 0; k < tiles; ++k) {
      mbar_wait(&empty[s], phase ^ 1);
      if (elect_one()) {
        mbar_arrive_expect_tx(&full[s], kStageBytes);
        bulk_load(buf + s * kStageBytes, src + size_t(k) * kStageBytes, kStageBytes, &full[s]);
      }
      s = s + 1 == kStages ? 0 : s + 1;
      phase ^= s == 0;
    }
  } else if (warp == 2) {
    for (int k = 0; k < tiles; ++k) {
      mbar_wait(&full[s], phase);
      if (elect_one()) {
        bulk_store(dst + size_t(k) * kStageBytes, buf + s * kStageBytes, kStageBytes);
        bulk_commit();
        bulk_wait_read0();
        mbar_arrive(&empty[s]);
      }
      s = s + 1 == kStages ? 0 : s + 1;
      phase ^= s == 0;
    }
  }
  __syncthreads();
  if (warp == 0) {
    out[blockIdx.x] = tmem;
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" ::"r"(tmem) : "memory");
  }
}

// Broken: the slot's bytes are refilled by TMA with no proxy fence after the generic read.
__global__ void slot_reused_unfenced(const uint8_t* src, uint8_t* dst, uint32_t* out, int tiles) {
  mainloop<false>(src, dst, out, tiles);  // expect: proxy-war
}

// Fixed: the producer fences after the barrier, before its first copy.
__global__ void slot_reused_fenced(const uint8_t* src, uint8_t* dst, uint32_t* out, int tiles) {
  mainloop<true>(src, dst, out, tiles);
}
