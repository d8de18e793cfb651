// Open false positive found in the real-code corpus (docs/real-code.md, "Corpus 7"):
// FlashInfer's multi-CTA radix top-k (flashinfer_radix_topk, topk.cuh). The CTAs that share
// one row form a group; CTA 0 of the group clears the group's output counter, then every CTA
// of the group passes a software group barrier (arrive: fence.acq_rel.gpu + red.relaxed on an
// arrival counter; wait: ld.acquire spin until the counter reaches the group size, then
// bar.sync), and only after it does every CTA add to the output counter. The barrier orders
// the clearing store before the other CTAs' atomics; barrier-init-race does not credit
// barriers between the store and the updates and reports it. XFAIL until it does (model/
// Protocol's spin loops give the wait; the check would need "every update is after a wait
// that the store's block arrived at after the store"). The broken twin (the atomics before the
// barrier) is a real barrier-init-race either way.
// RUN: %fenceline check --verify --checks=-*,barrier-init-race %s
// XFAIL: *

__device__ __forceinline__ void group_arrive_and_wait(unsigned* arrived, unsigned target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(arrived) : "memory");
    unsigned seen;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(arrived) : "memory");
    } while (seen < target);
  }
  __syncthreads();
}

template <bool kCountAfterBarrier>
__device__ void select_rows(const float* in, unsigned* state, int* out, int ctas_per_group) {
  const int group = blockIdx.x / ctas_per_group, cta = blockIdx.x % ctas_per_group;
  unsigned* arrived = state + 2 * group;
  unsigned* output_counter = state + 2 * group + 1;
  if (cta == 0 && threadIdx.x == 0) *output_counter = 0;
  if (!kCountAfterBarrier && in[blockIdx.x * blockDim.x + threadIdx.x] > 0.f) atomicAdd(output_counter, 1u);
  group_arrive_and_wait(arrived, ctas_per_group);
  if (kCountAfterBarrier && in[blockIdx.x * blockDim.x + threadIdx.x] > 0.f) {
    const unsigned slot = atomicAdd(output_counter, 1u);
    out[group * 1024 + slot] = blockIdx.x * blockDim.x + threadIdx.x;
  }
}

// Clean: every CTA counts after the group barrier that follows the clearing store.
__global__ void count_after_group_barrier(const float* in, unsigned* state, int* out, int ctas_per_group) {
  select_rows<true>(in, state, out, ctas_per_group);
}

// Broken: the other CTAs may count before CTA 0 clears the counter.
__global__ void count_before_group_barrier(const float* in, unsigned* state, int* out, int ctas_per_group) {
  select_rows<false>(in, state, out, ctas_per_group);  // expect: barrier-init-race
}
