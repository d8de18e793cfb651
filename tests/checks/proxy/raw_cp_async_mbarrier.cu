// proxy-raw, a warp-specialized cp.async pipeline completed on mbarriers (the
// FlashInfer paged-KV and MLA shape, CUTLASS PipelineAsync): a producer
// warpgroup gathers the tiles of a stage with cp.async and hands their
// completion to the stage's "full" barrier (cp.async.mbarrier.arrive.noinc:
// the barrier's phase completes when every producer thread's copies have);
// the consumer warpgroup waits on "full" and issues wgmma on the stage. The
// copies write through the generic proxy and take effect for the consumers
// at their wait, so each consumer thread fences after the wait and before
// the wgmma. The producers cannot fence for them: their copies are still in
// flight when they arrive.
// RUN: %fenceline check --arch sm_90a --verify %s
// The machine fix: each consumer fences after its wait on "full", before the wgmma.
// RUN: not %fenceline check --arch sm_90a --fix-dry-run %s 2>/dev/null | FileCheck %s --check-prefix=FIX
// FIX:      mbar_wait(&full[s], (k / kStages) & 1);
// FIX-NEXT: if (kFence == kConsumers) fence_proxy_async_cta();
// FIX-NEXT: +    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
// FIX-NEXT: wgmma_m64n64k16(c, smem_desc(tileA[s]), smem_desc(tileB[s]));
#include <cuda_bf16.h>

#include "Inputs/cp_async.cuh"
#include "Inputs/wgmma.cuh"

using namespace proxy_test;

enum Placement { kNone, kConsumers, kProducersAfterArrive };

template <Placement kFence>
__device__ __forceinline__ void gather_then_mma(const int4* a, const int4* b, const int* pages, float* out, int iters) {
  constexpr int kStages = 2;
  __shared__ alignas(128) __nv_bfloat16 tileA[kStages][64 * 16];
  __shared__ alignas(128) __nv_bfloat16 tileB[kStages][64 * 16];
  __shared__ alignas(8) uint64_t full[kStages], empty[kStages];
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 128);
      mbar_init(&empty[s], 128);
    }
    mbar_init_fence();
  }
  __syncthreads();
  const int t = threadIdx.x % 128;
  if (threadIdx.x >= 128) {  // producer warpgroup: paged gather with cp.async
    for (int k = 0; k < iters; ++k) {
      int s = k % kStages;
      mbar_wait(&empty[s], ((k / kStages) & 1) ^ 1);
      const int page = pages[k];
      cp_async_16(&reinterpret_cast<int4*>(tileA[s])[t], a + page * 128 + t);
      cp_async_16(&reinterpret_cast<int4*>(tileB[s])[t], b + page * 128 + t);
      cp_async_arrive_noinc(&full[s]);
      if (kFence == kProducersAfterArrive) fence_proxy_async_cta();
    }
    return;
  }
  Accum c{};
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    mbar_wait(&full[s], (k / kStages) & 1);
    if (kFence == kConsumers) fence_proxy_async_cta();
    wgmma_m64n64k16(c, smem_desc(tileA[s]), smem_desc(tileB[s]));
    mbar_arrive(&empty[s]);
  }
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + t) * 32 + i] = c.d[i];
}

// Broken: nothing fences the gathered tiles before wgmma reads them.
__global__ void cp_async_mbarrier_unfenced(const int4* a, const int4* b, const int* pages, float* out, int iters) {
  gather_then_mma<kNone>(a, b, pages, out, iters);  // expect: proxy-raw
}

// Fixed: every consumer thread fences after its wait on "full".
__global__ void cp_async_mbarrier_consumers_fence(const int4* a, const int4* b, const int* pages, float* out,
                                                  int iters) {
  gather_then_mma<kConsumers>(a, b, pages, out, iters);
}

// Broken: the producers fence after handing the copies to the barrier, while
// the copies may still be in flight; the consumers do not fence.
__global__ void cp_async_mbarrier_producer_fence(const int4* a, const int4* b, const int* pages, float* out,
                                                 int iters) {
  gather_then_mma<kProducersAfterArrive>(a, b, pages, out, iters);  // expect: proxy-raw
}
