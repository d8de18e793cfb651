// proxy-war around the first fill of a buffer. A generic READ that only ever
// precedes the async writes (here: a per-block header next to the tiles in
// dynamic shared memory, at an offset the checker cannot separate from the
// tiles' variable destinations) is not a hand-off: it would read the tiles
// before they were filled. A generic WRITE before the first fill (zeroing the
// tiles, then TMA over them) is the hazard itself and is reported.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/async_copy.cuh"

using namespace proxy_test;

constexpr int kTileBytes = 4096;
constexpr int kHeaderOffset = 2 * kTileBytes;

// Clean: header loaded by a bulk copy and read after its wait, once; the
// mainloop reads tiles and fences before handing them back.
__global__ void header_then_tiles(const void* map, const uint32_t* headers, float* out, int iters) {
  extern __shared__ __align__(1024) uint8_t dyn[];
  __shared__ alignas(8) uint64_t header_full, full;
  uint32_t* header = reinterpret_cast<uint32_t*>(dyn + kHeaderOffset);
  const int half = blockIdx.x & 1;  // which tile this block fills: a variable destination
  if (threadIdx.x == 0) {
    mbar_init(&header_full, 1);
    mbar_init(&full, 1);
    mbar_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&header_full, 16);
    bulk_load(header, headers + blockIdx.x * 4, 16, &header_full);
  }
  mbar_wait(&header_full, 0);
  const uint32_t row0 = header[0];
  float acc = 0.f;
  for (int k = 0; k < iters; ++k) {
    if (threadIdx.x == 0) {
      mbar_arrive_expect_tx(&full, kTileBytes);
      tma_load_2d(dyn + half * kTileBytes, map, 0, row0 + k * 8, &full);
    }
    mbar_wait(&full, k & 1);
    acc += reinterpret_cast<const float*>(dyn + half * kTileBytes)[threadIdx.x];
    fence_proxy_async_cta();
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Broken: the tiles are zeroed with generic stores, then filled by TMA.
__global__ void zero_then_fill(const void* map, float* out) {
  __shared__ alignas(128) float tile[kTileBytes / 4];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    mbar_init(&full, 1);
    mbar_init_fence();
  }
  for (int i = threadIdx.x; i < kTileBytes / 4; i += blockDim.x) tile[i] = 0.f;
  __syncthreads();  // expect: proxy-war
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&full, kTileBytes);
    tma_load_2d(tile, map, 0, blockIdx.x * 8, &full);
  }
  mbar_wait(&full, 0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x];
}
