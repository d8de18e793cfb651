// Issue 11, shapes 1 and 4 written with libcu++'s cuda::ptx wrappers: a
// persistent kernel carves one `extern __shared__` buffer into a 3-stage ring
// of [A tile | B tile] (two TMA boxes per stage, one `expect_tx` of both),
// the full/empty mbarriers, and tile-scheduler words that the producer writes
// with plain stores (the next tile, claimed with atomicAdd) and the consumers
// read after their wait. The stage index advances as `stage = (stage + 1) % 3`
// (Triton's form) with the phase flipped on the wrap. The scheduler words lie
// after the ring: no proxy-war for them; consumers that read the ring release
// it through a fence (clean) or without one (broken).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

constexpr int kStages = 3;
constexpr uint32_t kBoxBytes = 64 * 64 * 2;                  // one bf16 64x64 box
constexpr uint32_t kStageBytes = 2 * kBoxBytes;              // [A | B]
constexpr uint32_t kFullOffset = kStages * kStageBytes;      // [49152, 49176)
constexpr uint32_t kEmptyOffset = kFullOffset + 8 * kStages;  // [49176, 49200)
constexpr uint32_t kSchedOffset = kFullOffset + 128;         // int[kStages]: tile per stage

struct Smem {
  uint8_t* base;
  __device__ uint8_t* a(int s) const { return base + s * kStageBytes; }
  __device__ uint8_t* b(int s) const { return base + s * kStageBytes + kBoxBytes; }
  __device__ uint64_t* full(int s) const { return reinterpret_cast<uint64_t*>(base + kFullOffset) + s; }
  __device__ uint64_t* empty(int s) const { return reinterpret_cast<uint64_t*>(base + kEmptyOffset) + s; }
  __device__ int* tile(int s) const { return reinterpret_cast<int*>(base + kSchedOffset) + s; }
};

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

template <bool kFence>
__device__ __forceinline__ void persistent(const void* map_a, const void* map_b, int* next_tile, int tiles,
                                           float* out) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  Smem sm{smem_raw};
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      ptx::mbarrier_init(sm.full(s), 1);
      ptx::mbarrier_init(sm.empty(s), 4);
    }
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (warp == 4) {
    if (lane == 0) {
      int stage = 0;
      uint32_t phase = 0;
      for (;;) {
        wait_parity(sm.empty(stage), phase ^ 1);
        const int tile = atomicAdd(next_tile, 1);
        *sm.tile(stage) = tile;  // scheduler word, plain store, after the ring
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, sm.full(stage),
                                       tile < tiles ? kStageBytes : 0);
        if (tile >= tiles) break;
        const int32_t coords[2] = {0, tile * 64};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, sm.a(stage), map_a, coords, sm.full(stage));
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, sm.b(stage), map_b, coords, sm.full(stage));
        stage = (stage + 1) % kStages;
        phase ^= stage == 0;
      }
    }
    return;
  }
  int stage = 0;
  uint32_t phase = 0;
  const int t = threadIdx.x;
  for (;;) {
    wait_parity(sm.full(stage), phase);
    const int tile = *sm.tile(stage);
    if (tile >= tiles) break;
    const float* a = reinterpret_cast<const float*>(sm.a(stage));
    const float* b = reinterpret_cast<const float*>(sm.b(stage));
    float acc = 0.f;
    for (int j = t; j < 2048; j += 128) acc += a[j] * b[j];
    if (kFence) ptx::fence_proxy_async(ptx::space_shared);
    if (lane == 0) ptx::mbarrier_arrive(sm.empty(stage));
    out[tile * 128 + t] = acc;
    stage = (stage + 1) % kStages;
    phase ^= stage == 0;
  }
}

// Clean: consumers fence before the release; the scheduler words are no stage.
__global__ void libcu_persistent_fenced(const void* ma, const void* mb, int* next, int tiles, float* out) {
  persistent<true>(ma, mb, next, tiles, out);
}

// Broken: consumers release the stage they read without a fence.
__global__ void libcu_persistent_unfenced(const void* ma, const void* mb, int* next, int tiles, float* out) {
  persistent<false>(ma, mb, next, tiles, out);  // expect: proxy-war
}
