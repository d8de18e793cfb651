// Issue 11, shape 2: the barriers of two rings live in one array indexed at
// run time (`bars[0 + q]` / `bars[10 + q]` for the outer Q ring, `bars[2 + s]`
// / `bars[6 + s]` for the inner K/V ring: the `barrier_ptr + i` layout of GEMM
// and attention libraries). The consumers read the Q stage with plain loads in
// every inner K/V step and release it after the inner loop; the K/V tiles are
// read only by wgmma (async proxy, no fence needed). The hazard is the outer
// release: it must be matched with the Q copy, not with the first arrive of the
// inner ring.
// The kernels declare their block (__launch_bounds__(160): four consumer warps
// and the producer warp), as warp-specialized kernels do: without it %tid.x
// may reach 1023 and the Q read `ss.q[q][t]` would run past the Q array into
// the K/V tiles.
// Only the consumer warps (warp != 4: t < 128) reach the Q read: the memory
// analysis narrows %tid.x by the role branch that guards it.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda_bf16.h>

#include "Inputs/sm90_pipeline.cuh"

using namespace mt;

constexpr int kQStages = 2, kKvStages = 4;
constexpr int kQFloats = 128;
constexpr uint32_t kQBytes = kQFloats * 4;
constexpr uint32_t kTileBytes = 64 * 16 * 2;  // one bf16 64x16 operand tile
constexpr int kConsumerWarps = 4;

struct alignas(1024) SharedStorage {
  alignas(128) float q[kQStages][kQFloats];
  alignas(128) __nv_bfloat16 k[kKvStages][64 * 16];
  alignas(128) __nv_bfloat16 v[kKvStages][64 * 16];
  alignas(8) uint64_t bars[12];  // [0,2) Q full, [2,6) KV full, [6,10) KV empty, [10,12) Q empty
};

__device__ __forceinline__ void produce(SharedStorage& ss, const float* q_src, const void* kv_map, int tiles,
                                        int steps) {
  uint64_t* bars = ss.bars;
  int s = 0;
  uint32_t kv_phase = 0;
  for (int i = 0; i < tiles; ++i) {
    const int q = i & 1;
    ClusterBarrier::wait(bars + 10 + q, ((i >> 1) & 1) ^ 1);
    ClusterTransactionBarrier::arrive_and_expect_tx(bars + 0 + q, kQBytes);
    SM90_BULK_COPY_G2S::copy(q_src + size_t(i) * kQFloats, bars + 0 + q, ss.q[q], kQBytes);
    for (int j = 0; j < steps; ++j) {
      ClusterBarrier::wait(bars + 6 + s, kv_phase ^ 1);
      ClusterTransactionBarrier::arrive_and_expect_tx(bars + 2 + s, 2 * kTileBytes);
      SM90_TMA_LOAD_2D::copy(kv_map, bars + 2 + s, ss.k[s], 0, i * steps + j);
      SM90_TMA_LOAD_2D::copy(kv_map, bars + 2 + s, ss.v[s], 16, i * steps + j);
      s = s + 1 == kKvStages ? 0 : s + 1;
      kv_phase ^= s == 0;
    }
  }
}

enum QRelease { kOuterUnfenced, kOuterFenced, kInnerFenceCoversQ, kQReadAfterInnerFence };

template <QRelease kRelease>
__device__ __forceinline__ void attention(const float* q_src, const void* kv_map, float* out, int tiles,
                                          int steps) {
  __shared__ SharedStorage ss;
  uint64_t* bars = ss.bars;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, t = threadIdx.x;
  if (t == 0) {
    for (int i = 0; i < 12; ++i) ClusterBarrier::init(bars + i, i < 6 ? 1 : kConsumerWarps);
    fence_barrier_init();
  }
  __syncthreads();
  if (warp == kConsumerWarps) {
    if (elect_one_sync()) produce(ss, q_src, kv_map, tiles, steps);
    return;
  }
  Accum c{};
  float row = 0.f;
  int s = 0;
  uint32_t kv_phase = 0;
  for (int i = 0; i < tiles; ++i) {
    const int q = i & 1;
    ClusterBarrier::wait(bars + 0 + q, (i >> 1) & 1);
    for (int j = 0; j < steps; ++j) {
      ClusterBarrier::wait(bars + 2 + s, kv_phase);
      row = row * c.d[0] + ss.q[q][t];  // the Q stage, read every K/V step
      warpgroup_arrive();
      SM90_64x64x16_F32BF16BF16_SS::fma(make_gmma_desc(ss.k[s]).desc_, make_gmma_desc(ss.v[s]).desc_, c);
      warpgroup_commit_batch();
      warpgroup_wait0();
      if (kRelease == kInnerFenceCoversQ || kRelease == kQReadAfterInnerFence) fence_view_async_shared();
      if (lane == 0) ClusterBarrier::arrive(bars + 6 + s);  // K/V read by wgmma only: no fence needed
      if (kRelease == kQReadAfterInnerFence) row += ss.q[q][(t + 1) % kQFloats];  // after this step's fence
      s = s + 1 == kKvStages ? 0 : s + 1;
      kv_phase ^= s == 0;
    }
    if (kRelease == kOuterFenced) fence_view_async_shared();
    if (lane == 0) ClusterBarrier::arrive(bars + 10 + q);  // expect: proxy-war, proxy-war
  }
  for (int i = 0; i < 32; ++i) out[(blockIdx.x * 128 + t) * 32 + i] = c.d[i] + row;
}

// Broken: the Q stage is released after the inner loop with no fence (the
// expectations, one per broken kernel, are on the outer release line in
// `attention`).
__global__ void __launch_bounds__(160) nested_outer_release_unfenced(const float* q, const void* kv, float* out, int tiles, int steps) {
  attention<kOuterUnfenced>(q, kv, out, tiles, steps);
}

// Fixed: every consumer thread fences before the outer release.
__global__ void __launch_bounds__(160) nested_outer_release_fenced(const float* q, const void* kv, float* out, int tiles, int steps) {
  attention<kOuterFenced>(q, kv, out, tiles, steps);
}

// Fixed: a fence in every inner step, after that step's Q read, covers the
// outer release too.
__global__ void __launch_bounds__(160) nested_inner_fence_covers_q(const float* q, const void* kv, float* out, int tiles, int steps) {
  attention<kInnerFenceCoversQ>(q, kv, out, tiles, steps);
}

// Broken: a fence in every inner step, but a second Q read follows it; the
// last step's late read reaches the outer release unfenced (the inner fences
// cover every earlier one).
__global__ void __launch_bounds__(160) nested_q_read_after_inner_fence(const float* q, const void* kv, float* out, int tiles, int steps) {
  attention<kQReadAfterInnerFence>(q, kv, out, tiles, steps);
}
