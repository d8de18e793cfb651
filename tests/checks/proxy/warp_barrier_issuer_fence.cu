// Issue 33, shape D: a warp barrier as the gathering barrier of the issuer's
// fence. Every lane of a warp writes (proxy-raw) or reads (proxy-war) its
// warp's slice of a shared buffer, the warp meets at __syncwarp()
// (bar.warp.sync with a full mask), then one elected lane executes
// fence.proxy.async.shared::cta and issues the bulk copy: placement 2 of the
// proxy rule (the issuer fences after the barrier that gathered the
// accesses), as with __syncthreads(). Twins: no fence, the elected lane's
// fence before the warp barrier, a warp barrier with a partial mask, and an
// issuer that is one thread of one warp (the warp barrier gathers nothing of
// the other warps). Kernels of our own.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ bool elect_one() {
  uint32_t pred = 0;
  asm volatile("{\n .reg .b32 rx;\n .reg .pred px;\n elect.sync rx|px, %1;\n @px mov.s32 %0, 1;\n}\n"
               : "+r"(pred) : "r"(0xffffffffu));
  return pred != 0;
}
__device__ __forceinline__ void fence_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void bulk_store(float* dst, const float* src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem(src)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }


// 1. Correct: lanes write, __syncwarp(), the elected lane fences and stores.
__global__ void warp_tile_issuer_fence(float* out, int n) {
  __shared__ alignas(128) float stage[4][128];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int it = 0; it < n; ++it) {
    const bool elected = elect_one();
    if (elected) bulk_wait_read();
    __syncwarp();
    for (int j = 0; j < 4; ++j) stage[warp][j * 32 + lane] = float(it * j + lane);
    __syncwarp();
    if (elected) {
      fence_shared();
      bulk_store(out + (it * 4 + warp) * 128, &stage[warp][0], 512);
    }
  }
}

// 2. Broken: no fence.
__global__ void warp_tile_no_fence(float* out, int n) {
  __shared__ alignas(128) float stage[4][128];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int it = 0; it < n; ++it) {
    const bool elected = elect_one();
    if (elected) bulk_wait_read();
    __syncwarp();
    for (int j = 0; j < 4; ++j) stage[warp][j * 32 + lane] = float(it * j + lane);
    __syncwarp();
    if (elected) bulk_store(out + (it * 4 + warp) * 128, &stage[warp][0], 512);  // expect: proxy-raw
  }
}

// 3. Broken: the elected lane fences before the warp barrier (its own writes only).
__global__ void warp_tile_fence_before_syncwarp(float* out, int n) {
  __shared__ alignas(128) float stage[4][128];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int it = 0; it < n; ++it) {
    const bool elected = elect_one();
    if (elected) bulk_wait_read();
    __syncwarp();
    for (int j = 0; j < 4; ++j) stage[warp][j * 32 + lane] = float(it * j + lane);
    if (elected) fence_shared();
    __syncwarp();
    if (elected) bulk_store(out + (it * 4 + warp) * 128, &stage[warp][0], 512);  // expect: proxy-raw
  }
}

// 4. Broken: a partial member mask (lanes 0-15) gathers only half the writers.
__global__ void warp_tile_partial_mask(float* out, int n) {
  __shared__ alignas(128) float stage[4][128];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int it = 0; it < n; ++it) {
    if (lane == 0) bulk_wait_read();
    __syncwarp();
    for (int j = 0; j < 4; ++j) stage[warp][j * 32 + lane] = float(it * j + lane);
    if (lane < 16) __syncwarp(0xffffu);
    if (lane == 0) {
      fence_shared();
      bulk_store(out + (it * 4 + warp) * 128, &stage[warp][0], 512);  // expect: proxy-raw
    }
  }
}

// 5. Broken: every warp writes the whole tile, thread 0 alone stores it after
// its own warp's barrier: the other warps' writes are not gathered.
__global__ void block_tile_thread0_after_syncwarp(float* out, int n) {
  __shared__ alignas(128) float tile[512];
  for (int it = 0; it < n; ++it) {
    if (threadIdx.x == 0) bulk_wait_read();
    __syncthreads();
    for (int j = 0; j < 4; ++j) tile[j * 128 + threadIdx.x] = float(it * j + threadIdx.x);
    __syncwarp();
    if (threadIdx.x == 0) {
      fence_shared();
      bulk_store(out + it * 512, tile, 2048);  // expect: proxy-raw
    }
  }
}

// 6. proxy-war, correct: every lane reads its warp's TMA-filled stage, the
// warp meets at __syncwarp(), the elected lane fences and refills the stage.
__global__ void warp_stage_refill_issuer_fence(const float* in, float* out, int n) {
  __shared__ alignas(128) float stage[4][128];
  __shared__ alignas(8) uint64_t full[4];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t bar = smem(&full[warp]);
  if (lane == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
  __syncwarp();
  float acc = 0.f;
  for (int it = 0; it < n; ++it) {
    if (elect_one()) {
      fence_shared();
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 512;" ::"r"(bar) : "memory");
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];"
                   ::"r"(smem(&stage[warp][0])), "l"(in + (it * 4 + warp) * 128), "r"(bar) : "memory");
    }
    asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}"
                 ::"r"(bar), "r"(it & 1) : "memory");
    for (int j = 0; j < 4; ++j) acc += stage[warp][j * 32 + lane];
    __syncwarp();
  }
  out[threadIdx.x] = acc;
}

// 7. proxy-war, broken: the same without the elected lane's fence.
__global__ void warp_stage_refill_no_fence(const float* in, float* out, int n) {
  __shared__ alignas(128) float stage[4][128];
  __shared__ alignas(8) uint64_t full[4];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t bar = smem(&full[warp]);
  if (lane == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
  __syncwarp();
  float acc = 0.f;
  for (int it = 0; it < n; ++it) {
    if (elect_one()) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 512;" ::"r"(bar) : "memory");
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];"
                   ::"r"(smem(&stage[warp][0])), "l"(in + (it * 4 + warp) * 128), "r"(bar) : "memory");  // expect: proxy-war
    }
    asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}"
                 ::"r"(bar), "r"(it & 1) : "memory");
    for (int j = 0; j < 4; ++j) acc += stage[warp][j * 32 + lane];
    __syncwarp();
  }
  out[threadIdx.x] = acc;
}

// 8. Correct, placement 3 within a warp: the lanes read the stage, meet at
// __syncwarp(), the elected lane fences (and stores a result), the warp meets
// again, and the lane elected next refills the stage: the fence lies between
// the two warp barriers, in every warp that gets there.
__global__ void warp_stage_fence_between_syncwarps(const float* in, float* out, int n) {
  __shared__ alignas(128) float stage[4][128];
  __shared__ alignas(128) float result[4][32];
  __shared__ alignas(8) uint64_t full[4];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t bar = smem(&full[warp]);
  if (lane == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
  __syncwarp();
  for (int it = 0; it < n; ++it) {
    if (elect_one()) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 512;" ::"r"(bar) : "memory");
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];"
                   ::"r"(smem(&stage[warp][0])), "l"(in + (it * 4 + warp) * 128), "r"(bar) : "memory");
    }
    asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}"
                 ::"r"(bar), "r"(it & 1) : "memory");
    float acc = 0.f;
    for (int j = 0; j < 4; ++j) acc += stage[warp][j * 32 + lane];
    if (elect_one()) bulk_wait_read();
    __syncwarp();
    result[warp][lane] = acc;
    __syncwarp();
    if (elect_one()) {
      fence_shared();
      bulk_store(out + (it * 4 + warp) * 32, &result[warp][0], 128);
    }
    __syncwarp();
  }
}

// 9. Broken twin of 8: the elected lane fences right after its reads, before
// the warp barriers, and not before the store: neither the other lanes' reads
// nor their result writes are ordered before a fence.
__global__ void warp_stage_fence_before_syncwarp(const float* in, float* out, int n) {
  __shared__ alignas(128) float stage[4][128];
  __shared__ alignas(128) float result[4][32];
  __shared__ alignas(8) uint64_t full[4];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t bar = smem(&full[warp]);
  if (lane == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
  __syncwarp();
  for (int it = 0; it < n; ++it) {
    if (elect_one()) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 512;" ::"r"(bar) : "memory");
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 512, [%2];"
                   ::"r"(smem(&stage[warp][0])), "l"(in + (it * 4 + warp) * 128), "r"(bar) : "memory");  // expect: proxy-war
    }
    asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}"
                 ::"r"(bar), "r"(it & 1) : "memory");
    float acc = 0.f;
    for (int j = 0; j < 4; ++j) acc += stage[warp][j * 32 + lane];
    if (elect_one()) {
      bulk_wait_read();
      fence_shared();
    }
    __syncwarp();
    result[warp][lane] = acc;
    __syncwarp();
    if (elect_one()) bulk_store(out + (it * 4 + warp) * 32, &result[warp][0], 128);  // expect: proxy-raw
    __syncwarp();
  }
}
