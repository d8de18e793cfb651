// Benchmark input for the growth test (bench/unroll_growth.sh): one kernel whose fully
// unrolled body is a TMA-style stage ring, UNROLL steps long (-DUNROLL=N, default 64). Each
// step: the producer lane waits for the stage to be free and refills it with a bulk copy; every
// consumer thread waits for it, reads it with generic loads, writes a partial sum to a scratch
// row after the ring (a different object in the same dynamic buffer), fences and releases the
// stage. Doubling UNROLL doubles the accesses, barriers and copies of the one function, so a
// checker that pairs unrelated accesses grows 4x per doubling; one that groups by object, 2x.
#include <cstdint>

#ifndef UNROLL
#define UNROLL 64
#endif

constexpr int kStages = 4;
constexpr int kStageFloats = 256;  // 1 KB stages
constexpr int kScratchRows = 8;

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)), "r"(parity)
      : "memory");
}

__device__ __forceinline__ void refill(float* stage, const float* src, uint64_t* full) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(full)),
               "r"(kStageFloats * 4)
               : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          smem(stage)),
      "l"(src), "r"(kStageFloats * 4), "r"(smem(full))
      : "memory");
}

__device__ __forceinline__ void release(uint64_t* empty) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(empty)) : "memory");
}

template <int kUnroll>
__global__ void __launch_bounds__(128) unrolled_ring(const float* src, float* out) {
  extern __shared__ __align__(128) float buf[];  // kStages stages, then kScratchRows rows
  __shared__ alignas(8) uint64_t full[kStages], empty[kStages];
  float* scratch = buf + kStages * kStageFloats;
  const int tid = threadIdx.x;
  if (tid < kStages) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full[tid])) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 96;" ::"r"(smem(&empty[tid])) : "memory");
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  float acc = 0.f;
#pragma unroll
  for (int t = 0; t < kUnroll; ++t) {
    const int s = t % kStages;
    const uint32_t parity = (t / kStages) & 1;
    float* stage = buf + s * kStageFloats;
    if (tid == 0) {
      wait_parity(&empty[s], parity ^ 1);
      refill(stage, src + size_t(t) * kStageFloats, &full[s]);
    } else if (tid >= 32) {
      wait_parity(&full[s], parity);
      acc += stage[tid] * stage[(tid + t) % kStageFloats];
      scratch[(t % kScratchRows) * 128 + tid] = acc;
      release(&empty[s]);
    }
  }
  out[blockIdx.x * blockDim.x + tid] = acc + scratch[tid];
}

// The one instance the benchmark checks.
template __global__ void unrolled_ring<UNROLL>(const float*, float*);
