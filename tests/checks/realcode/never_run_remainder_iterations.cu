// False positive found in the real-code corpus (docs/real-code.md, "Corpus 7"), fixed by
// model/ThreadDecidedBranches.cpp and model/Memory's apartByStrideAndRange: FlashInfer's
// multi-CTA radix top-k (flashinfer_radix_topk, topk.cuh:581). Each row group keeps one
// record: three 256-bucket histograms, then the group barrier's arrival counter. Every CTA
// adds its local histogram into the group's record with `for (i = tid; i < 256; i +=
// 1024) atomicAdd(&hist[i], local[i])`, then crosses the group barrier (thread 0:
// fence.acq_rel.gpu, red.relaxed arrive, ld.acquire spin; then __syncthreads()) and reads
// the sums back. The histogram atomics are data behind the barrier's release, not signals:
//  - nvcc unrolls the loop with remainder iterations at i = tid + 1024 k and a four-way body
//    that no thread runs (for every tid < 256 the trip-count tests go the other way), whose
//    addresses would reach the arrival counter;
//  - the records are 3088 bytes apart, and a bucket [0, 3072) of one group's record never is
//    the counter (3080) of another's.
// Broken twin: the loop runs over 800 words of the record (past the 768 buckets): the atomics
// of threads 768 to 799 land on the fields after the histograms, the arrival counter among
// them, and raise it with no release.
// RUN: %fenceline check --verify --checks=-*,release-missing %s
#include <cstdint>

struct GroupState {
  unsigned hist[3][256];
  unsigned remaining_k;
  unsigned prefix;
  int arrival;
  int output;
};

constexpr unsigned kThreads = 1024;

__device__ __forceinline__ void group_barrier(int* arrival, int target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("red.relaxed.gpu.global.add.s32 [%0], 1;" ::"l"(arrival) : "memory");
    int seen;
    do {
      asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(seen) : "l"(arrival) : "memory");
    } while (seen < target);
  }
  __syncthreads();
}

template <unsigned kWords, bool kOneHistogram>
__device__ __forceinline__ void accumulate(GroupState* states, const unsigned* src, unsigned* out, int per_group,
                                           int rows) {
  __shared__ unsigned local[kThreads];
  GroupState* state = states + blockIdx.x / per_group;
  const unsigned tid = threadIdx.x;
  if (blockIdx.x % per_group == 0 && tid == 0) state->output = 0;
  // A persistent loop over rows, as the radix top-k's: nvcc unrolls the bucket loops in it.
  for (int row = 0; row < rows; ++row) {
    local[tid] = src[(row * gridDim.x + blockIdx.x) * kThreads + tid];
    __syncthreads();
    unsigned* hist = kOneHistogram ? state->hist[row % 3] : &state->hist[0][0];
    for (unsigned i = tid; i < kWords; i += kThreads)
      if (local[i] > 0) atomicAdd(&hist[i], local[i]);
    group_barrier(&state->arrival, (row + 1) * per_group);
    for (unsigned i = tid; i < kWords; i += kThreads) out[(row * gridDim.x + blockIdx.x) * kWords + i] = hist[i];
    if (tid == 0) out[row] = state->output;
  }
}

// Clean: 256 buckets of one histogram, read back after the group barrier.
__global__ void __launch_bounds__(kThreads) histogram_behind_group_barrier(GroupState* states, const unsigned* src,
                                                                         unsigned* out, int per_group, int rows) {
  accumulate<256, true>(states, src, out, per_group, rows);
}

// Broken: 800 words from the first bucket reach the arrival counter (word 770).
__global__ void __launch_bounds__(kThreads) words_past_the_histograms(GroupState* states, const unsigned* src,
                                                                     unsigned* out, int per_group, int rows) {
  accumulate<800, false>(states, src, out, per_group, rows);  // expect: release-missing
}
