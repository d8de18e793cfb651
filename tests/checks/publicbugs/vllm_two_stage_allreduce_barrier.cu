// Baseline release-missing and acquire-missing across GPUs (a mid-kernel
// barrier of a two-stage all-reduce), vLLM custom all-reduce:
// https://github.com/vllm-project/vllm/pull/2760 (merged).
// In the two-stage kernel every rank first reduces one partition of the
// tensor from all ranks' inputs and writes it to its own staging buffer;
// a barrier across the ranks (each block raises a flag in every peer's signal
// area and spins on the flags the peers raise in its own) separates this from
// the second stage, where each rank gathers the other partitions from the
// peers' staging buffers. The PR: "When using 2-stage allreduce or half
// butterfly allreduce, a __threadfence_system or a release-acquire pattern is
// needed to absolutely guarantee the visibility of other devices' write on the
// current device, which is missing from the current implementation" (its other
// fix -- flags written as different bytes of one 8-byte word are not morally
// strong -- is not reproduced here). Pre-fix the barrier was a volatile store
// and a volatile spin. Our kernel: a peer table passed by value, one flag word
// per (block, sending rank); the fixed twin gathers the block with
// __syncthreads(), releases the flag at system scope and acquires it.
// Both findings are strict tier on main: the data and the flags are reached
// through the by-value peer table, and neither link is traced to a named
// object (`unknown-pointer`); the same holds for #5.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

constexpr int kMaxRanks = 8;
struct RankPtrs {
  const float* in[kMaxRanks];
  float* stage[kMaxRanks];
  uint32_t* signal[kMaxRanks];  // signal[r][block * kMaxRanks + sender]
};

__device__ __forceinline__ void st_flag(uint32_t* p, uint32_t v, bool release) {
  if (release)
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
  else
    asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");  // expect-strict: release-missing
}
__device__ __forceinline__ uint32_t ld_flag(const uint32_t* p, bool acquire) {
  uint32_t v;
  if (acquire)
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  else
    asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing
  return v;
}

template <bool kOrdered>
__device__ __forceinline__ void ranks_barrier(const RankPtrs& p, int rank, int ngpus, uint32_t epoch) {
  __syncthreads();
  if (threadIdx.x < ngpus) {
    st_flag(p.signal[threadIdx.x] + blockIdx.x * kMaxRanks + rank, epoch, kOrdered);
    while (ld_flag(p.signal[rank] + blockIdx.x * kMaxRanks + threadIdx.x, kOrdered) != epoch) {
    }
  }
  __syncthreads();
}

template <bool kOrdered>
__device__ __forceinline__ void two_stage(RankPtrs p, float* out, int rank, int ngpus, int part, uint32_t epoch) {
  // stage 1: reduce-scatter into this rank's staging buffer
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < part; i += gridDim.x * blockDim.x) {
    float acc = 0.f;
    for (int r = 0; r < ngpus; ++r) acc += p.in[r][rank * part + i];
    p.stage[rank][i] = acc;
  }
  ranks_barrier<kOrdered>(p, rank, ngpus, epoch);
  // stage 2: all-gather from the peers' staging buffers
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < part; i += gridDim.x * blockDim.x) {
    for (int r = 0; r < ngpus; ++r) out[r * part + i] = p.stage[r][i];
  }
}

__global__ void allreduce_two_stage_volatile_barrier(RankPtrs p, float* out, int rank, int ngpus, int part,
                                                     uint32_t epoch) {
  two_stage<false>(p, out, rank, ngpus, part, epoch);
}
__global__ void allreduce_two_stage_release_acquire(RankPtrs p, float* out, int rank, int ngpus, int part,
                                                    uint32_t epoch) {
  two_stage<true>(p, out, rank, ngpus, part, epoch);
}
