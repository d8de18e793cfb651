// acquire-missing on a ticket (issue 30, shape 1) where the counting thread is
// picked on all three thread-index axes: the count is issued under
// threadIdx.x == 0 with (threadIdx.y | threadIdx.z) == 0 as the atom's own
// predicate, and the acquire fence after it sits under a second test of
// x, y and z. The path from the atomic that skips the fence takes that test's
// other side, which the counting thread never does (it is thread (0, 0, 0)):
// no finding. The same kernel without that acquire fence is the hazard: the
// counting thread reaches the reads on either side of the test. Both kernels
// release before the count. (The shape of include/fenceline/grid_barrier.cuh's
// arrival and wait.)
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ unsigned count_if(unsigned* counter, bool first) {
  unsigned old = 0;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p atom.relaxed.gpu.global.add.u32 %0, [%1], 1; }"
               : "+r"(old)
               : "l"(counter), "r"(static_cast<uint32_t>(first))
               : "memory");
  return old;
}
__device__ __forceinline__ unsigned count_if_unfenced(unsigned* counter, bool first) {
  unsigned old = 0;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p atom.relaxed.gpu.global.add.u32 %0, [%1], 1; }"
               : "+r"(old)
               : "l"(counter), "r"(static_cast<uint32_t>(first))  // expect: acquire-missing
               : "memory");
  return old;
}

template <bool kFence>
__device__ __forceinline__ void last_block_sums(const float* in, float* partials, unsigned* counter, float* out) {
  __shared__ int last;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (threadIdx.x == 0 && threadIdx.y == 0) partials[blockIdx.x] = v;
  __syncthreads();
  bool is_last = false;
  if (threadIdx.x == 0) {
    __threadfence();
    const bool first = (threadIdx.y | threadIdx.z) == 0;
    const unsigned old = kFence ? count_if(counter, first) : count_if_unfenced(counter, first);
    is_last = first && old == gridDim.x - 1;
  }
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    if (kFence) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    last = is_last;
  }
  __syncthreads();
  if (last && threadIdx.y == 0) {
    float sum = 0.f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) sum += partials[b];
    out[threadIdx.x] = sum;
  }
}

__global__ void fence_under_thread_test(const float* in, float* partials, unsigned* counter, float* out) {
  last_block_sums<true>(in, partials, counter, out);
}
__global__ void no_acquire(const float* in, float* partials, unsigned* counter, float* out) {
  last_block_sums<false>(in, partials, counter, out);
}
