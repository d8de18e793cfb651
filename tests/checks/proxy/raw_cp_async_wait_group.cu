// proxy-raw, wgmma operands filled by Ampere cp.async: each of 128 threads
// copies 16 bytes of A and of B, commits, waits for its group
// (cp.async.wait_group 0), the block synchronizes and the warpgroup issues
// wgmma, which reads both tiles through the async proxy. cp.async writes
// through the generic proxy and its writes take effect at the wait, so a
// fence.proxy.async counts only after the wait: by every copying thread
// before the barrier, or by every issuing thread after it. A fence between
// the copies and their wait does not count.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: not %fenceline check --arch sm_90a %s 2>&1 | FileCheck %s
// CHECK: warning: shared memory written through the generic proxy is read by the async proxy (wgmma.mma_async operand) without fence.proxy.async [proxy-raw]
// CHECK: note: unfenced generic write of shared memory (cp.async.shared.global)
// CHECK: note: the cp.async.shared.global writes shared memory through the generic proxy; it completes at this cp.async.wait_group
// CHECK: note: this fence comes before the cp.async completes
#include <cuda_bf16.h>

#include "Inputs/cp_async.cuh"
#include "Inputs/wgmma.cuh"

using namespace proxy_test;

enum Placement { kNone, kAfterBarrier, kAfterWait, kBeforeWait, kThread0AfterWait };

template <Placement kFence>
__device__ __forceinline__ void mma_from_cp_async(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out) {
  __shared__ alignas(128) __nv_bfloat16 tileA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 tileB[64 * 16];
  cp_async_16(&tileA[threadIdx.x * 8], a + blockIdx.x * 1024 + threadIdx.x * 8);
  cp_async_16(&tileB[threadIdx.x * 8], b + blockIdx.x * 1024 + threadIdx.x * 8);
  cp_async_commit();
  if (kFence == kBeforeWait) fence_proxy_async_cta();
  cp_async_wait<0>();
  if (kFence == kAfterWait) fence_proxy_async_cta();
  if (kFence == kThread0AfterWait && threadIdx.x == 0) fence_proxy_async_cta();
  __syncthreads();
  if (kFence == kAfterBarrier) fence_proxy_async_cta();
  Accum c{};
  wgmma_m64n64k16(c, smem_desc(tileA), smem_desc(tileB));
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 32 + i] = c.d[i];
}

// Broken: no fence anywhere.
__global__ void cp_async_operands_unfenced(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out) {
  mma_from_cp_async<kNone>(a, b, out);  // expect: proxy-raw
}

// Fixed: every issuing thread fences after the barrier.
__global__ void cp_async_operands_fence_after_barrier(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out) {
  mma_from_cp_async<kAfterBarrier>(a, b, out);
}

// Fixed: every copying thread fences after its wait, before the barrier.
__global__ void cp_async_operands_fence_after_wait(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out) {
  mma_from_cp_async<kAfterWait>(a, b, out);
}

// Broken: the fence comes before the wait, while the copies may still be in flight.
__global__ void cp_async_operands_fence_before_wait(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out) {
  mma_from_cp_async<kBeforeWait>(a, b, out);  // expect: proxy-raw
}

// Broken: only thread 0 fences after its wait; the other threads' copies are not covered.
__global__ void cp_async_operands_thread0_fence(const __nv_bfloat16* a, const __nv_bfloat16* b, float* out) {
  mma_from_cp_async<kThread0AfterWait>(a, b, out);  // expect: proxy-raw
}

// Clean: the cp.async data is read only with ld.shared (generic to generic,
// no proxy crossing); wgmma reads other tiles, written by nobody generically.
__global__ void cp_async_read_by_ld_shared_only(const float* src, const void* map, float* out) {
  __shared__ alignas(128) float staged[128 * 4];
  __shared__ alignas(128) __nv_bfloat16 tileA[64 * 16];
  __shared__ alignas(128) __nv_bfloat16 tileB[64 * 16];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    mbar_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, 2 * 64 * 16 * 2);
    tma_load_2d(tileA, map, 0, blockIdx.x, &full);
    tma_load_2d(tileB, map, 16, blockIdx.x, &full);
  }
  cp_async_16(&staged[threadIdx.x * 4], src + blockIdx.x * 512 + threadIdx.x * 4);
  cp_async_wait_all();
  __syncthreads();
  float bias = ld_shared(&staged[(threadIdx.x * 4 + 4) % 512]);
  mbar_wait(&full, 0);
  Accum c{};
  wgmma_m64n64k16(c, smem_desc(tileA), smem_desc(tileB));
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + threadIdx.x) * 32 + i] = c.d[i] + bias;
}
