// Driver (our own): NVSHMEM's device-side collectives from the pip wheel
// nvidia-nvshmem-cu13 (device/nvshmemx_coll_defines.cuh, implemented in
// non_abi/device/coll/: reduce.cuh, fcollect.cuh, alltoall.cuh, broadcast.cuh),
// each called from a kernel as the NVSHMEM documentation shows for
// collectives launched with nvshmemx_collective_launch: block-scoped
// sum-reduce, fcollect (all-gather), alltoall and broadcast over
// NVSHMEM_TEAM_WORLD, then a read of the symmetric result. Built like
// nvshmem_signal.cu: -rdc=true and -I <nvshmem>/include.
#include <nvshmem.h>
#include <nvshmemx.h>

__global__ void sum_reduce_block(float* dest, const float* source, float* out, size_t n) {
  nvshmemx_float_sum_reduce_block(NVSHMEM_TEAM_WORLD, dest, source, n);
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = dest[i];
}

__global__ void fcollect_block(float* dest, const float* source, float* out, size_t n) {
  nvshmemx_float_fcollect_block(NVSHMEM_TEAM_WORLD, dest, source, n);
  for (size_t i = threadIdx.x; i < n * nvshmem_n_pes(); i += blockDim.x) out[i] = dest[i];
}

__global__ void alltoall_block(float* dest, const float* source, float* out, size_t n) {
  nvshmemx_float_alltoall_block(NVSHMEM_TEAM_WORLD, dest, source, n);
  for (size_t i = threadIdx.x; i < n * nvshmem_n_pes(); i += blockDim.x) out[i] = dest[i];
}

__global__ void broadcast_block(float* dest, const float* source, float* out, size_t n) {
  nvshmemx_float_broadcast_block(NVSHMEM_TEAM_WORLD, dest, source, n, 0);
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = dest[i];
}
