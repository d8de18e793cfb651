// One lane publishes a shared slot to its warp with no __syncwarp(), HeCBench
// logic-rewrite: https://github.com/ORNL/HeCBench/pull/221 (merged, "Restore
// __syncwarp() in getCutTruthTableConsecutive").
// Lane 0 of each warp allocates a per-warp scratch buffer and stores its
// pointer in a shared array slot indexed by the warp; the other lanes read the
// pointer on the next line. The __syncwarp() between the write and the read
// had been commented out, leaving the read to race with the write (the PR:
// on Volta and later, lanes of a warp are separate threads; only
// bar.warp.sync orders one lane's shared store before another lane's load).
// Our kernel: lane 0 computes the warp's output offset with an atomicAdd on
// a global cursor and stores it in base[warp]; every lane reads base[warp] and
// writes its element there. Fixed: __syncwarp() between the store and the
// loads.
//
// shared-race (session 28, branch recall28; shape 18 in README.md) reports the
// other lanes' load: lane 0's store (one lane per warp) and their load name
// one word for the lanes of a warp (base + 4 * (tid >> 5)), and nothing that
// orders threads lies between (the relaxed atomicAdd on the global cursor is
// no synchronization without a fence). nvcc keeps lane 0's value in a
// register and moves the other lanes' load into the other side of the
// `lane == 0` branch: the two sides of one thread-index branch, run by
// different lanes, unordered. Main's binary (fenceline-m28a) has no such check.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

template <bool kSyncWarp>
__device__ __forceinline__ void compact(const float* in, float* out, unsigned* cursor) {
  __shared__ unsigned base[8];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) base[warp] = atomicAdd(cursor, 32u);
  if (kSyncWarp) __syncwarp();
  const unsigned at = base[warp];  // expect: shared-race
  out[at + lane] = in[blockIdx.x * blockDim.x + threadIdx.x];
}

__global__ void __launch_bounds__(256) compact_without_syncwarp(const float* in, float* out, unsigned* cursor) {
  compact<false>(in, out, cursor);
}
__global__ void __launch_bounds__(256) compact_with_syncwarp(const float* in, float* out, unsigned* cursor) {
  compact<true>(in, out, cursor);
}
