// Unit-test input: TMA and mbarrier shapes from the toolkit's cuda::ptx
// helpers (tensor coordinates in addresses, `::` modifiers, block-local
// predicates in try_wait loops).
#include <cuda/ptx>
#include <cstdint>

extern "C" __global__ void tma_load(const void* tensor_map, int* out) {
  __shared__ alignas(128) int tile[64 * 64];
  __shared__ alignas(8) uint64_t bar;
  namespace ptx = cuda::ptx;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int32_t coords[2] = {int32_t(blockIdx.x) * 64, 0};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, tensor_map, coords, &bar);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  out[threadIdx.x] = tile[threadIdx.x];
  ptx::fence_proxy_async(ptx::space_shared);
}
