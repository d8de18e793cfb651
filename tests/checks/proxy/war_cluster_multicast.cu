// proxy-war in a 2-CTA cluster with TMA multicast: each CTA's producer
// multicasts its half of every stage into both CTAs, so a stage may be
// refilled only when the consumers of BOTH CTAs released it; consumers arrive
// on the "empty" barrier of every CTA of the cluster (remote arrives through
// mapa, .release.cluster). Every consumer thread must still fence its own
// generic reads before the (elected, remote) arrive.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/async_copy.cuh"

using namespace proxy_test;

constexpr int kStages = 2;
constexpr int kHalfBytes = 32 * 64 * 2;  // 32 rows of 64 bf16 per CTA
constexpr int kClusterSize = 2;

__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void arrive_on_cta(uint64_t* bar, uint32_t cta) {
  asm volatile(
      "{\n\t.reg .b32 remote;\n\tmapa.shared::cluster.u32 remote, %0, %1;\n\t"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n\t}" ::"r"(smem(bar)),
      "r"(cta)
      : "memory");
}

__device__ __forceinline__ void tma_multicast(void* dst, const void* map, int x, int y, uint64_t* bar,
                                              uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem(bar)), "h"(mask)
      : "memory");
}

template <bool kFenced>
__device__ __forceinline__ void multicast_ring(const void* map, uint32_t* out, int iters) {
  __shared__ alignas(1024) uint8_t tile[kStages][2 * kHalfBytes];
  __shared__ alignas(8) uint64_t full[kStages], empty[kStages];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t rank = cluster_rank();
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 4 * kClusterSize);
    }
    mbar_init_fence();
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (warp == 4) {
    if (lane == 0)
      for (int k = 0; k < iters; ++k) {
        int s = k % kStages;
        mbar_wait(&empty[s], ((k / kStages) & 1) ^ 1);
        mbar_arrive_expect_tx(&full[s], 2 * kHalfBytes);
        tma_multicast(tile[s] + rank * kHalfBytes, map, 0, k * 64 + rank * 32, &full[s], 0x3);
      }
    return;
  }
  uint32_t acc = 0;
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&full[s], (k / kStages) & 1);
    const uint32_t* words = reinterpret_cast<const uint32_t*>(tile[s]);
    for (int i = threadIdx.x; i < 2 * kHalfBytes / 4; i += 128) acc += words[i];
    if (kFenced) fence_proxy_async_cta();
    if (lane == 0)
      for (uint32_t c = 0; c < kClusterSize; ++c) arrive_on_cta(&empty[s], c);
  }
  out[(blockIdx.x * 128) + threadIdx.x] = acc;
}

__global__ void __cluster_dims__(2, 1, 1) multicast_no_fence(const void* map, uint32_t* out, int iters) {
  multicast_ring<false>(map, out, iters);  // expect: proxy-war
}

__global__ void __cluster_dims__(2, 1, 1) multicast_fenced(const void* map, uint32_t* out, int iters) {
  multicast_ring<true>(map, out, iters);
}
