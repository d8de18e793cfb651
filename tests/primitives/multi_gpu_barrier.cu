// RUN: %fenceline check --verify --arch sm_90a %s
// MultiGpuBarrier as a one-block-per-GPU kernel uses it: write a slice into every peer's
// buffer through peer pointers, sync at .sys scope (with and without a timeout), read what
// the peers wrote. fenceline check must find nothing (no expectations).
#include "../../include/fenceline/multi_gpu_barrier.cuh"

using fenceline::MultiGpuBarrierRank;

__global__ void all_gather(MultiGpuBarrierRank barrier, float* const* peer_buffers, const float* mine,
                           float* gathered, int count) {
  for (int p = 0; p < barrier.ranks; ++p)
    for (int k = threadIdx.x; k < count; k += blockDim.x)
      peer_buffers[p][barrier.rank * count + k] = mine[k];
  barrier.sync();
  for (int k = threadIdx.x; k < count * barrier.ranks; k += blockDim.x) gathered[k] = peer_buffers[barrier.rank][k];
}

__global__ void all_gather_with_timeout(MultiGpuBarrierRank barrier, float* const* peer_buffers, const float* mine,
                                        float* gathered, int count, int* failed) {
  for (int p = 0; p < barrier.ranks; ++p)
    for (int k = threadIdx.x; k < count; k += blockDim.x)
      peer_buffers[p][barrier.rank * count + k] = mine[k];
  if (!barrier.sync(1000000000ull)) {
    if (threadIdx.x == 0) *failed = 1;
    return;
  }
  for (int k = threadIdx.x; k < count * barrier.ranks; k += blockDim.x) gathered[k] = peer_buffers[barrier.rank][k];
}
