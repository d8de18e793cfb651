// proxy-war with bar.sync hand-offs: all threads read a shared buffer, a
// __syncthreads() gathers them, then thread 0 refills the buffer with a bulk
// copy. Either every reader fences before the barrier or thread 0 fences
// after it, before the copy. Also: one thread that reads and refills itself.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/async_copy.cuh"

using namespace proxy_test;

constexpr int kFloats = 2048;
constexpr uint32_t kBytes = kFloats * sizeof(float);

enum Placement { kNone, kIssuerAfterBarrier, kReadersBeforeBarrier, kIssuerBeforeBarrier };

template <Placement kFence>
__device__ __forceinline__ float reuse(const float* src, int iters) {
  __shared__ alignas(128) float buf[kFloats];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    mbar_init_fence();
  }
  __syncthreads();
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    if (threadIdx.x == 0) {
      if (kFence == kIssuerAfterBarrier) fence_proxy_async_cta();
      mbar_arrive_expect_tx(&full, kBytes);
      bulk_load(buf, src + size_t(k) * kFloats, kBytes, &full);
    }
    mbar_wait(&full, k & 1);
    for (int j = threadIdx.x; j < kFloats; j += blockDim.x) acc += buf[j];
    if (kFence == kReadersBeforeBarrier) fence_proxy_async_cta();
    if (kFence == kIssuerBeforeBarrier && threadIdx.x == 0) fence_proxy_async_cta();
    __syncthreads();
  }
  return acc;
}

__global__ void syncthreads_no_fence(const float* src, float* out, int iters) {
  out[threadIdx.x] = reuse<kNone>(src, iters);  // expect: proxy-war
}

__global__ void syncthreads_issuer_fence_after_barrier(const float* src, float* out, int iters) {
  out[threadIdx.x] = reuse<kIssuerAfterBarrier>(src, iters);
}

__global__ void syncthreads_readers_fence_before_barrier(const float* src, float* out, int iters) {
  out[threadIdx.x] = reuse<kReadersBeforeBarrier>(src, iters);
}

// Broken: thread 0 fences before the barrier; the other readers are not covered.
__global__ void syncthreads_issuer_fence_before_barrier(const float* src, float* out, int iters) {
  out[threadIdx.x] = reuse<kIssuerBeforeBarrier>(src, iters);  // expect: proxy-war
}

// One thread reads the buffer and then refills it itself: the same thread's
// program order is the hand-off; the report is at the copy.
__global__ void same_thread_no_fence(const float* src, float* out, int iters) {
  __shared__ alignas(128) float buf[kFloats];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x != 0) return;
  mbar_init(&full, 1);
  mbar_init_fence();
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    mbar_arrive_expect_tx(&full, kBytes);
    bulk_load(buf, src + size_t(k) * kFloats, kBytes, &full);  // expect: proxy-war
    mbar_wait(&full, k & 1);
    for (int j = 0; j < kFloats; j += 64) acc += buf[j];
  }
  out[0] = acc;
}

__global__ void same_thread_fenced(const float* src, float* out, int iters) {
  __shared__ alignas(128) float buf[kFloats];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x != 0) return;
  mbar_init(&full, 1);
  mbar_init_fence();
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    mbar_arrive_expect_tx(&full, kBytes);
    bulk_load(buf, src + size_t(k) * kFloats, kBytes, &full);
    mbar_wait(&full, k & 1);
    for (int j = 0; j < kFloats; j += 64) acc += buf[j];
    fence_proxy_async_cta();
  }
  out[0] = acc;
}

// Clean: a single TMA fill read after the mbarrier wait (async-to-generic
// order comes with the completion) and a scratch buffer the copy never touches.
__global__ void single_fill_no_reuse(const float* src, float* out) {
  __shared__ alignas(128) float buf[kFloats];
  __shared__ float scratch[256];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    mbar_init_fence();
  }
  scratch[threadIdx.x % 256] = 1.f;
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, kBytes);
    bulk_load(buf, src, kBytes, &full);
  }
  mbar_wait(&full, 0);
  out[threadIdx.x] = buf[threadIdx.x] + scratch[(threadIdx.x + 1) % 256];
}

// Clean: a counter in the same shared struct, right after the tile, is updated
// with generic atomics every round. The tensor copy's size is not in the
// instruction (it is in the tensor map), but the expect_tx byte count bounds
// it: the copy never reaches the counter.
struct TileAndCounter {
  alignas(128) float tile[kFloats];
  int rounds;
};

__global__ void counter_after_tile(const void* map, float* out, int iters) {
  __shared__ TileAndCounter s;
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    s.rounds = 0;
    mbar_init(&full, 1);
    mbar_init_fence();
  }
  __syncthreads();
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    if (threadIdx.x == 0) {
      mbar_arrive_expect_tx(&full, kBytes);
      tma_load_2d(s.tile, map, 0, k * 32, &full);
    }
    mbar_wait(&full, k & 1);
    acc += s.tile[threadIdx.x];
    fence_proxy_async_cta();  // every reader, after its reads of the tile
    atomicAdd(&s.rounds, 1);  // after the fence, but outside what the copy writes
    __syncthreads();
  }
  out[threadIdx.x] = acc + s.rounds;
}
