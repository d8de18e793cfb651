// Issue 11, shape 4 (copy extents), for a ring the compiler unrolled with a
// run-time byte count (corpus 7, CUTLASS's ptr-array grouped GEMM epilogue):
// the producer loads the four stages of a C ring with TMA at constant
// addresses smem + 4096 * s (the loop over s unrolled), each announced with
// an expect_tx count read from a kernel parameter, so no copy has a constant
// extent. The consumers read the stages and, before handing the ring back,
// fence their reads for the async proxy, then write a bookkeeping word (a
// tensormap field, a tile counter) after the fence. Copies through
// one tensor map have one box, and the stages of a ring do not overlap, so
// each copy writes at most the 4096 bytes up to the next stage:
//  - the word after the ring (smem + 16384 + 64) is no hazard;
//  - the word inside the last stage is: proxy-war at the hand-back.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "../proxy/Inputs/async_copy.cuh"

using namespace proxy_test;

constexpr int kStages = 4;
constexpr unsigned kStage = 4096;

template <unsigned kWord>
__device__ __forceinline__ void c_ring(const void* map, const unsigned* box_bytes, float* out, int tiles) {
  extern __shared__ __align__(1024) unsigned char smem[];
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * kStage + 1024);
  uint64_t* empty = full + 1;
  const unsigned bytes = box_bytes[blockIdx.x];
  if (threadIdx.x == 0) {
    mbar_init(full, 1);
    mbar_init(empty, 32);
    mbar_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {  // producer
    for (int t = 0; t < tiles; ++t) {
      if (t > 0) mbar_wait(empty, (t - 1) & 1);
      mbar_arrive_expect_tx(full, kStages * bytes);
#pragma unroll
      for (int s = 0; s < kStages; ++s) tma_load_2d(smem + s * kStage, map, s * 32, t * 32, full);
    }
  } else if (threadIdx.x >= 32 && threadIdx.x < 64) {  // consumers
    const unsigned lane = threadIdx.x - 32;
    float sum = 0.f;
    for (int t = 0; t < tiles; ++t) {
      mbar_wait(full, t & 1);
#pragma unroll
      for (int s = 0; s < kStages; ++s) sum += reinterpret_cast<const float*>(smem + s * kStage)[lane];
      fence_proxy_async_cta();  // the stage reads are released to the async proxy; the word below is not
      if (lane == 0) *reinterpret_cast<int*>(smem + kWord) = t;
      mbar_arrive(empty);
    }
    out[blockIdx.x * 32 + lane] = sum + *reinterpret_cast<const int*>(smem + kWord);
  }
}

// Clean: the word lies after the ring.
__global__ void word_after_ring(const void* map, const unsigned* box_bytes, float* out, int tiles) {
  c_ring<kStages * kStage + 64>(map, box_bytes, out, tiles);
}

// Broken: the word lies in the last stage, which the next tile's copy overwrites.
__global__ void word_in_last_stage(const void* map, const unsigned* box_bytes, float* out, int tiles) {
  c_ring<(kStages - 1) * kStage + 64>(map, box_bytes, out, tiles);  // expect: proxy-war
}
