// tcgen05-wait after a barrier that hands no tensor memory (sm_100a, compile-only), the
// shape of Triton's Blackwell attention backward (tt_attention_bwd_sm100, docs/real-code.md
// "Corpus 8"): each thread loads its accumulator rows with tcgen05.ld, meets the others at
// __syncthreads() (the scratch it will write was being read), waits for its load, converts the
// layout through shared memory, meets them again, and only then does one elected thread issue
// the next tcgen05.mma into the same columns. The first barrier hands no tensor memory: no
// tcgen05 write can follow it before the second, which every thread reaches after its wait.
// Broken twins: the wait moved after the second barrier (that barrier is the hand-off), and a
// tcgen05.mma issued between the two barriers (the first one is).
// RUN: %fenceline check --arch sm_100a --verify --checks=-*,tcgen05-wait %s
// RUN: %fenceline check --strict --arch sm_100a --verify --checks=-*,tcgen05-wait %s
#include <cstdint>

__device__ __forceinline__ void umma_bf16(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc) {
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
               "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem),
               "l"(a), "l"(b), "r"(idesc)
               : "memory");
}
__device__ __forceinline__ uint32_t load_row(uint32_t taddr) {
  uint32_t v;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(v) : "r"(taddr) : "memory");
  return v;
}
__device__ __forceinline__ void wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }

enum Shape { kWaitBetweenBarriers, kWaitAfterSecondBarrier, kMmaBetweenBarriers };

template <Shape kShape>
__device__ __forceinline__ void convert_and_reissue(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc,
                                                    float* out, int steps) {
  __shared__ float scratch[128];
  for (int k = 0; k < steps; ++k) {
    const uint32_t v = load_row(tmem + ((threadIdx.x / 32) * 32 << 16));
    __syncthreads();
    if (kShape == kMmaBetweenBarriers && threadIdx.x == 0) umma_bf16(tmem, a, b, idesc);
    if (kShape != kWaitAfterSecondBarrier) wait_ld();
    scratch[threadIdx.x] = __uint_as_float(v);
    __syncthreads();
    if (kShape == kWaitAfterSecondBarrier) wait_ld();
    out[k * blockDim.x + threadIdx.x] = scratch[(threadIdx.x + 1) % 128];
    if (threadIdx.x == 0) umma_bf16(tmem, a, b, idesc);
  }
}

// Clean: the wait comes before the barrier that any tcgen05.mma follows.
__global__ void wait_between_barriers(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, float* out, int steps) {
  convert_and_reissue<kWaitBetweenBarriers>(tmem, a, b, idesc, out, steps);
}

// Broken: the load is still in flight at the second barrier, after which thread 0 overwrites the columns.
__global__ void wait_after_second_barrier(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, float* out,
                                          int steps) {
  convert_and_reissue<kWaitAfterSecondBarrier>(tmem, a, b, idesc, out, steps);  // expect-strict: tcgen05-wait
}

// Broken: thread 0 overwrites the columns right after the first barrier, before the others' waits.
__global__ void mma_between_barriers(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, float* out, int steps) {
  convert_and_reissue<kMmaBetweenBarriers>(tmem, a, b, idesc, out, steps);  // expect: tcgen05-wait
}
