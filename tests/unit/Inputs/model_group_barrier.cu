// Software group barriers for ProtocolModel::isPublishedByGroupBarrier
// (model/GroupBarriers.cpp): CTA 0 of a group clears a counter, every CTA
// passes a group barrier (thread 0: fence.acq_rel.gpu, red.relaxed arrive,
// ld.acquire spin; then __syncthreads()), and every CTA adds to the counter.
__device__ __forceinline__ void group_barrier(unsigned* arrived, unsigned target, bool release) {
  __syncthreads();
  if (threadIdx.x == 0) {
    if (release) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(arrived) : "memory");
    unsigned seen;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(arrived) : "memory");
    } while (seen < target);
  }
  __syncthreads();
}

// The add follows the barrier that follows the clear: published.
extern "C" __global__ void clear_barrier_add(unsigned* state, int per_group) {
  unsigned* counter = state + 2 * (blockIdx.x / per_group) + 1;
  if (blockIdx.x % per_group == 0 && threadIdx.x == 0) *counter = 0;
  group_barrier(state + 2 * (blockIdx.x / per_group), per_group, true);
  atomicAdd(counter, 1u);
}

// The add comes before the barrier: not published.
extern "C" __global__ void clear_add_barrier(unsigned* state, int per_group) {
  unsigned* counter = state + 2 * (blockIdx.x / per_group) + 1;
  if (blockIdx.x % per_group == 0 && threadIdx.x == 0) *counter = 0;
  atomicAdd(counter, 1u);
  group_barrier(state + 2 * (blockIdx.x / per_group), per_group, true);
}

// The arrive releases nothing: not published.
extern "C" __global__ void clear_unreleased_barrier_add(unsigned* state, int per_group) {
  unsigned* counter = state + 2 * (blockIdx.x / per_group) + 1;
  if (blockIdx.x % per_group == 0 && threadIdx.x == 0) *counter = 0;
  group_barrier(state + 2 * (blockIdx.x / per_group), per_group, false);
  atomicAdd(counter, 1u);
}
