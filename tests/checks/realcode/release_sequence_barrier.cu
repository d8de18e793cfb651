// RUN: %fenceline check --verify --arch sm_90a %s
// Shape found in libcu++'s device-scope cuda::barrier (tools/realcode, docs/real-code.md): the
// arriving thread adds to the barrier word with an acq_rel RMW; the last arriver then adds
// again, relaxed, to flip the phase that waiters poll with ld.acquire. The relaxed add is an
// RMW on the same word right after the thread's own release RMW, so a waiter that reads it
// still synchronizes with that release (PTX observation order runs through atomic RMWs; the
// release sequence of C++). The writes before the barrier are released: nothing to report.
#include <cstdint>
#include <cuda/atomic>

constexpr uint64_t kPhaseBit = uint64_t(1) << 63;

__device__ void grid_arrive_and_wait(uint64_t* word, uint64_t expected) {
  cuda::atomic_ref<uint64_t, cuda::thread_scope_device> bar(*word);
  uint64_t old = bar.fetch_add(1, cuda::memory_order_acq_rel);
  uint64_t phase = old & kPhaseBit;
  if ((old & ~kPhaseBit) + 1 == expected) {
    // Last arriver: reset the count and flip the phase in one relaxed RMW.
    bar.fetch_add(kPhaseBit - expected, cuda::memory_order_relaxed);
  } else {
    while ((bar.load(cuda::memory_order_acquire) & kPhaseBit) == phase) {
    }
  }
}

__global__ void stencil_rounds(uint64_t* word, float* cells, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int n = gridDim.x * blockDim.x;
  for (int r = 0; r < rounds; ++r) {
    cells[i] = cells[i] * 0.5f + 1.f;
    __syncthreads();
    if (threadIdx.x == 0) grid_arrive_and_wait(word, gridDim.x);
    __syncthreads();
    float left = cells[(i + n - 1) % n];
    __syncthreads();
    if (threadIdx.x == 0) grid_arrive_and_wait(word, gridDim.x);
    __syncthreads();
    cells[i] += left * 0.25f;
  }
}
