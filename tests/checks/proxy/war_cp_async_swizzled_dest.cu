// Open false positive (docs/real-code.md, "cp.async stages read by the async proxy"):
// FlashInfer's paged prefill (flashinfer_prefill_sm90, SparseCollectiveMainloop) gathers K/V
// with cp.async into CuTe-swizzled stages, `addr ^ ((addr & 896) >> 3)` on the generic address
// (Swizzle<3, 4, 3>), and loads Q by TMA into its own buffer, smem_q, before the K/V stages.
// The value analysis has no rule for xor, so a swizzled cp.async destination is an unknown
// offset of the dynamic buffer: proxy-war takes the K writes for writes of the Q buffer that
// the TMA then overwrites. A swizzle changes only the address bits below 2^7 here (the xor
// operand is below 128), so the write stays in its 128-byte row; placing it exactly also needs
// the buffer's base to be 128-byte aligned, which the PTX declares only as 16 (the rule
// belongs to model/Values; not done here). The broken twin refills the K buffer itself.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/cp_async.cuh"

using namespace proxy_test;

constexpr int kTileBytes = 32768;

__device__ __forceinline__ void* swizzle_128b(void* p) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  return reinterpret_cast<void*>(a ^ ((a & 896) >> 3));
}

template <bool kRefillK>
__device__ __forceinline__ void gather_k_then_load_q(const int4* kv, const int4* q_src, int tiles) {
  extern __shared__ __align__(1024) uint8_t smem[];
  int4* q = reinterpret_cast<int4*>(smem);               // [0, 32768): TMA
  int4* k = reinterpret_cast<int4*>(smem + kTileBytes);  // [32768, 65536): cp.async, swizzled
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem + 2 * kTileBytes);
  if (threadIdx.x == 0) {
    mbar_init(bar, 1);
    mbar_init_fence();
  }
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
#pragma unroll
    for (int j = 0; j < kTileBytes / 16 / 128; ++j)  // 16 chunks of 16 bytes per thread
      cp_async_16(swizzle_128b(&k[threadIdx.x + 128 * j]), kv + size_t(t) * (kTileBytes / 16) + threadIdx.x + 128 * j);
    cp_async_wait_all();
    __syncthreads();
    if (threadIdx.x == 0) {
      mbar_arrive_expect_tx(bar, kTileBytes);
      bulk_load(kRefillK ? static_cast<void*>(k) : static_cast<void*>(q), q_src + size_t(t) * (kTileBytes / 16),
                kTileBytes, bar);
    }
    mbar_wait(bar, t & 1);
    __syncthreads();
  }
}

// Clean: the cp.async writes K, the TMA writes Q; the buffers do not overlap.
__global__ void swizzled_k_then_q_load(const int4* kv, const int4* q_src, int tiles) {
  gather_k_then_load_q<false>(kv, q_src, tiles);
}

// Broken twin: the TMA overwrites the K buffer that the cp.async wrote, with no proxy fence.
__global__ void swizzled_k_then_k_refill(const int4* kv, const int4* q_src, int tiles) {
  gather_k_then_load_q<true>(kv, q_src, tiles);  // expect: proxy-war
}
