// A warp shuffle taken for a memory barrier within a warp, llama.cpp's CUDA
// MUL_MAT_ID ids helper: https://github.com/ggml-org/llama.cpp/issues/28376
// (compute-sanitizer racecheck: read/write races in the helper's shared
// metadata), fix https://github.com/ggml-org/llama.cpp/pull/28475 (merged,
// "cuda: fixes races in mmid and mmf"; the same line was taken into
// https://github.com/ikawrakow/ik_llama.cpp/pull/2502 with the comment "the
// loop above writes store[], the loop below reads it back").
// The helper's lanes each write entries of a shared array in one loop, sum a
// count across the warp with a shuffle reduction, and read entries written by
// other lanes in the next loop. A shfl.sync makes the lanes meet but is not a
// memory barrier: nothing orders lane 3's st.shared before lane 0's ld.shared
// of the same entry (PTX ISA: bar.warp.sync orders memory among the
// participating threads; shfl.sync exchanges registers only). The fix puts a
// __syncwarp() after the reduction. Our kernel: one warp per row; lane i
// writes its matching positions to slot[i], a __shfl_xor_sync reduction sums
// the matches, and lane i then reads slot[(i + 1) % 32]. Fixed: __syncwarp()
// after the reduction.
//
// XFAIL: *
// shared-race (session 28, branch recall28; shape 18 in README.md) asks only
// accesses at an address that is one for the block or for a warp (one lane
// writes, the others read): here lane i writes slot[i] and reads
// slot[(i + 1) % 32], and deciding that the reader reads another thread's
// element needs the two offsets as functions of the thread index, which the
// value analysis does not give for symbol-based addresses (docs/checks/
// shared-race.md, Limitations).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

template <bool kSyncWarp>
__device__ __forceinline__ void ids_helper(const int* ids, int n, int expert, int* out_pos, int* out_count) {
  __shared__ int slot[32];
  const int lane = threadIdx.x;
  int mine = -1, matches = 0;
  for (int i = lane; i < n; i += 32) {
    if (ids[blockIdx.x * n + i] == expert) {
      mine = i;
      ++matches;
    }
  }
  slot[lane] = mine;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) matches += __shfl_xor_sync(0xffffffffu, matches, off);
  if (kSyncWarp) __syncwarp();
  const int theirs = slot[(lane + 1) % 32];  // expect: shared-race
  out_pos[blockIdx.x * 32 + lane] = theirs;
  if (lane == 0) out_count[blockIdx.x] = matches;
}

__global__ void __launch_bounds__(32) ids_after_shuffle_only(const int* ids, int n, int expert, int* pos, int* count) {
  ids_helper<false>(ids, n, expert, pos, count);
}
__global__ void __launch_bounds__(32) ids_after_syncwarp(const int* ids, int n, int expert, int* pos, int* count) {
  ids_helper<true>(ids, n, expert, pos, count);
}
