// proxy-war (and proxy-raw) with a cp.async write: a tile staged by Ampere
// cp.async (generic proxy) is written out by a bulk store (an async-proxy
// read: proxy-raw) and the buffer is then refilled by a bulk copy (an
// async-proxy write over the cp.async's generic writes: proxy-war). The
// cp.async writes take effect at their wait; one fence.proxy.async after that
// wait (every copying thread, before the barrier) or in the bulk issuer after
// the barrier orders them before both async-proxy operations. A fence between
// the copy and its wait does not count.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/cp_async.cuh"

using namespace proxy_test;

enum Placement { kNone, kCopiersAfterWait, kIssuerAfterBarrier, kCopiersBeforeWait };

template <Placement kFence>
__device__ __forceinline__ void stage_store_refill(const int4* first, const int4* rest, int4* staged, int4* out) {
  __shared__ alignas(128) int4 tile[128];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    mbar_init_fence();
  }
  cp_async_16(&tile[threadIdx.x], first + blockIdx.x * 128 + threadIdx.x);
  cp_async_commit();
  if (kFence == kCopiersBeforeWait) fence_proxy_async_cta();
  cp_async_wait<0>();
  if (kFence == kCopiersAfterWait) fence_proxy_async_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    if (kFence == kIssuerAfterBarrier) fence_proxy_async_cta();
    bulk_store(staged + blockIdx.x * 128, tile, sizeof(tile));
    bulk_commit();
    bulk_wait_read0();
    mbar_arrive_expect_tx(&full, sizeof(tile));
    bulk_load(tile, rest + blockIdx.x * 128, sizeof(tile), &full);
  }
  mbar_wait(&full, 0);
  out[blockIdx.x * 128 + threadIdx.x] = tile[(threadIdx.x + 1) % 128];
}

__global__ void cp_async_store_refill_unfenced(const int4* first, const int4* rest, int4* staged, int4* out) {
  stage_store_refill<kNone>(first, rest, staged, out);  // expect: proxy-raw, proxy-war
}

__global__ void cp_async_store_refill_copiers_fence(const int4* first, const int4* rest, int4* staged, int4* out) {
  stage_store_refill<kCopiersAfterWait>(first, rest, staged, out);
}

__global__ void cp_async_store_refill_issuer_fence(const int4* first, const int4* rest, int4* staged, int4* out) {
  stage_store_refill<kIssuerAfterBarrier>(first, rest, staged, out);
}

// Broken: the fence precedes the wait, while the copies may still be in flight.
__global__ void cp_async_store_refill_fence_before_wait(const int4* first, const int4* rest, int4* staged,
                                                        int4* out) {
  stage_store_refill<kCopiersBeforeWait>(first, rest, staged, out);  // expect: proxy-raw, proxy-war
}
