// proxy-war by program order, one finding per missing fence (docs/checks/proxy-war.md, "One
// finding per fence"). One thread runs a single-buffer pipeline: it waits for the stage, reads it
// back through the generic proxy (a checksum), and refills it with bulk copies, with no
// fence.proxy.async between its reads and the copies.
//
// - stage_in_three_chunks: the refill is three bulk copies of the stage's three chunks, one
//   after another. The reads reach all three, and one fence before the first copy (after the
//   reads) covers the other two: one warning, at the first copy, the other two as notes, one
//   edit. (Before the grouping: three warnings, one per copy, and three edits.)
// - stage_from_one_of_two_sources: the refill is one of two copies (odd trips from one source,
//   even trips from another). The same reads reach both and neither copy is on the path to the
//   other: one warning, at the first copy, the other as a note, and an edit before each copy.
// - two_stages_two_fences (the twin): two stages, each read and refilled by its own copy.
//   Different reads reach the two copies: two missing fences, two warnings.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

constexpr int kChunkFloats = 256;
constexpr int kChunkBytes = kChunkFloats * 4;
constexpr int kStageFloats = 3 * kChunkFloats;

__device__ __forceinline__ unsigned smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void bar_init(unsigned long long* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(bar)) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void arrive_bytes(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void wait_phase(unsigned long long* bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred done;\n"
      "wait_%=:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait_%=;\n}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}

__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
  asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(dst)),
               "l"(src), "r"(bytes), "r"(smem(bar))
               : "memory");
}

__global__ void __launch_bounds__(32) stage_in_three_chunks(const float* src, float* out, int iters) {
  __shared__ alignas(128) float stage[kStageFloats];
  __shared__ unsigned long long bar;
  if (threadIdx.x != 0) return;
  bar_init(&bar);
  arrive_bytes(&bar, 3 * kChunkBytes);
  bulk_copy(stage, src, kChunkBytes, &bar);
  bulk_copy(stage + kChunkFloats, src + kChunkFloats, kChunkBytes, &bar);
  bulk_copy(stage + 2 * kChunkFloats, src + 2 * kChunkFloats, kChunkBytes, &bar);
  for (int k = 0; k < iters; ++k) {
    wait_phase(&bar, k & 1);
    float sum = 0.f;
    for (int i = 0; i < kStageFloats; ++i) sum += stage[i];
    out[k] = sum;
    if (k + 1 < iters) {
      const float* next = src + size_t(k + 1) * kStageFloats;
      arrive_bytes(&bar, 3 * kChunkBytes);
      bulk_copy(stage, next, kChunkBytes, &bar);  // expect: proxy-war
      bulk_copy(stage + kChunkFloats, next + kChunkFloats, kChunkBytes, &bar);
      bulk_copy(stage + 2 * kChunkFloats, next + 2 * kChunkFloats, kChunkBytes, &bar);
    }
  }
}

__global__ void __launch_bounds__(32) stage_from_one_of_two_sources(const float* even, const float* odd, float* out,
                                                                    int iters) {
  __shared__ alignas(128) float stage[kStageFloats];
  __shared__ unsigned long long bar;
  if (threadIdx.x != 0) return;
  bar_init(&bar);
  arrive_bytes(&bar, 3 * kChunkBytes);
  bulk_copy(stage, even, 3 * kChunkBytes, &bar);
  for (int k = 0; k < iters; ++k) {
    wait_phase(&bar, k & 1);
    float sum = 0.f;
    for (int i = 0; i < kStageFloats; ++i) sum += stage[i];
    out[k] = sum;
    if (k + 1 < iters) {
      arrive_bytes(&bar, 3 * kChunkBytes);
      if (k & 1)
        bulk_copy(stage, even + size_t(k + 1) * kStageFloats, 3 * kChunkBytes, &bar);  // expect: proxy-war
      else
        bulk_copy(stage, odd + size_t(k + 1) * kStageFloats, 3 * kChunkBytes, &bar);
    }
  }
}

__global__ void __launch_bounds__(32) two_stages_two_fences(const float* src, float* out, int iters) {
  __shared__ alignas(128) float first[kChunkFloats];
  __shared__ alignas(128) float second[kChunkFloats];
  __shared__ unsigned long long bar;
  if (threadIdx.x != 0) return;
  bar_init(&bar);
  arrive_bytes(&bar, 2 * kChunkBytes);
  bulk_copy(first, src, kChunkBytes, &bar);
  bulk_copy(second, src + kChunkFloats, kChunkBytes, &bar);
  for (int k = 0; k < iters; ++k) {
    wait_phase(&bar, k & 1);
    float a = 0.f, b = 0.f;
    for (int i = 0; i < kChunkFloats; ++i) a += first[i];
    if (k + 1 < iters) {
      const float* next = src + size_t(k + 1) * 2 * kChunkFloats;
      arrive_bytes(&bar, 2 * kChunkBytes);
      bulk_copy(first, next, kChunkBytes, &bar);  // expect: proxy-war
      for (int i = 0; i < kChunkFloats; ++i) b += second[i];
      bulk_copy(second, next + kChunkFloats, kChunkBytes, &bar);  // expect: proxy-war
    } else {
      for (int i = 0; i < kChunkFloats; ++i) b += second[i];
    }
    out[k] = a + b;
  }
}
