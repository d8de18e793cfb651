// cuda::ptx TMA helpers: tensor and plain bulk copies into shared memory
// completing on an mbarrier, try_wait loops, async-proxy fences, a tensor
// store with bulk groups. Builds for sm_90a and sm_120a.
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

extern "C" __global__ void corpus_tma_round_trip(const void* load_map, const void* store_map, const int4* src) {
  __shared__ alignas(128) int tile[32 * 32];
  __shared__ alignas(16) int4 staging[64];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&full, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int32_t coords[2] = {0, int32_t(blockIdx.x) * 32};
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full,
                                   sizeof(tile) + sizeof(staging));
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, load_map, coords, &full);
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, staging, src + blockIdx.x * 64, sizeof(staging),
                       &full);
  }
  while (!ptx::mbarrier_try_wait_parity(&full, 0)) {
  }
  tile[threadIdx.x] += staging[threadIdx.x % 64].x;
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    int32_t coords[2] = {0, int32_t(blockIdx.x) * 32};
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, store_map, coords, tile);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
}
