// RUN: %fenceline check --verify --arch sm_90a %s
// GridBarrier in the shape kernels use it: every block writes its part, all blocks sync,
// every block reads what the others wrote; then the same with split arrive/wait and
// independent work in between. fenceline check must find nothing (no expectations).
#include "../../include/fenceline/grid_barrier.cuh"

using fenceline::GridBarrier;

__global__ void grid_barrier_sync(GridBarrier barrier, float* data, float* out, int rounds) {
  const unsigned n = gridDim.x * blockDim.x;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    data[i] = data[i] * 0.5f + r;
    barrier.sync();
    out[i] += data[(i + blockDim.x) % n];
    barrier.sync();
  }
}

__global__ void grid_barrier_split(GridBarrier barrier, unsigned* data, unsigned* out, unsigned* scratch) {
  const unsigned n = gridDim.x * blockDim.x;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = i * 3u;
  GridBarrier::Token token = barrier.arrive();
  scratch[i] = i ^ 0x55u;  // block-private work overlapping the barrier
  barrier.wait(token);
  out[i] = data[n - 1 - i] + scratch[i];
}

// The bounded forms: the acquire fence runs on the timeout exit as well, so neither the
// sync_until nor the split wait_until draws acquire-missing.
__global__ void grid_barrier_bounded(GridBarrier barrier, unsigned* data, unsigned* out, unsigned* timeouts,
                                     uint64_t timeout_ns) {
  const unsigned n = gridDim.x * blockDim.x;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t deadline = fenceline::global_timer_ns() + timeout_ns;
  data[i] = i * 5u;
  if (!barrier.sync_until(deadline)) {
    if (threadIdx.x == 0) atomicAdd(timeouts, 1u);
    return;
  }
  out[i] = data[n - 1 - i];
  GridBarrier::Token token = barrier.arrive();
  if (!barrier.wait_until<fenceline::Sem::acq_rel>(token, deadline)) {
    if (threadIdx.x == 0) atomicAdd(timeouts, 1u);
    return;
  }
  out[i] += data[(i + 1) % n];
}

// Both waiting designs named explicitly (the default above, GridBarrierDesign::chosen, polls
// the word the host set in the barrier, GridBarrier::poll_offset): the
// flag_line waiters poll the flag that the last arriver publishes with st.release.gpu.
template <fenceline::GridBarrierDesign D>
__global__ void grid_barrier_design(GridBarrier barrier, unsigned* data, unsigned* out) {
  const unsigned n = gridDim.x * blockDim.x;
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = i * 7u;
  barrier.sync<fenceline::Sem::acquire, D>();
  out[i] = data[n - 1 - i];
}
template __global__ void grid_barrier_design<fenceline::GridBarrierDesign::one_word>(GridBarrier, unsigned*, unsigned*);
template __global__ void grid_barrier_design<fenceline::GridBarrierDesign::flag_line>(GridBarrier, unsigned*, unsigned*);
