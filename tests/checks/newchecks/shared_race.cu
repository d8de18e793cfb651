// shared-race: a weak shared-memory store and another thread's weak load of
// the same bytes with no barrier between (the missing __syncwarp() or
// __syncthreads()). Broken kernels and their fixed twins; the silent kernels
// are forms the check leaves alone (each thread its own element, every thread
// writing one value, a barrier on the way, volatile warp-synchronous code).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

// Thread 0 publishes a block-wide value and every thread reads it at once.
template <bool kBarrier>
__device__ __forceinline__ void publish_total(const int* in, int* out) {
  __shared__ int total;
  if (threadIdx.x == 0) total = in[blockIdx.x];
  if (kBarrier) __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = total * 2;  // expect: shared-race
}
__global__ void publish_without_barrier(const int* in, int* out) { publish_total<false>(in, out); }
__global__ void publish_after_barrier(const int* in, int* out) { publish_total<true>(in, out); }

// A per-warp slot read by the warp's lanes, then overwritten by lane 0 for
// the next round (write after read within the warp).
template <bool kSyncWarp>
__device__ __forceinline__ void warp_rounds(const float* in, float* out, int rounds) {
  __shared__ float slot[8];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) slot[warp] = in[blockIdx.x * 8 + warp];
  __syncwarp();
  float acc = 0.f;
  for (int r = 0; r < rounds; ++r) {
    acc += slot[warp] * lane;
    if (kSyncWarp) __syncwarp();
    if (lane == 0) slot[warp] = in[(blockIdx.x * rounds + r) * 8 + warp];  // expect: shared-race
    __syncwarp();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
__global__ void __launch_bounds__(256) warp_rounds_without_syncwarp(const float* in, float* out, int rounds) {
  warp_rounds<false>(in, out, rounds);
}
__global__ void __launch_bounds__(256) warp_rounds_with_syncwarp(const float* in, float* out, int rounds) {
  warp_rounds<true>(in, out, rounds);
}

// A loop whose barrier sits between the reads and the write, but none between
// the write and the next iteration's reads.
template <bool kSecondBarrier>
__device__ __forceinline__ void carried(const float* in, float* out, int steps) {
  __shared__ float pivot;
  if (threadIdx.x == 0) pivot = in[blockIdx.x];
  __syncthreads();
  float x = 0.f;
  for (int s = 0; s < steps; ++s) {
    x += pivot;  // expect: shared-race
    __syncthreads();
    if (threadIdx.x == 0) pivot = in[blockIdx.x * steps + s];
    if (kSecondBarrier) __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
__global__ void carried_without_second_barrier(const float* in, float* out, int steps) { carried<false>(in, out, steps); }
__global__ void carried_with_second_barrier(const float* in, float* out, int steps) { carried<true>(in, out, steps); }

// Silent here (counter-reset's question): thread 0 advances a shared round
// counter, computed from the word itself, that the others read.
__global__ void round_counter(int* out, int rounds) {
  __shared__ int round;
  if (threadIdx.x == 0) round = 0;
  __syncthreads();
  int seen = 0;
  for (int r = 0; r < rounds; ++r) {
    seen += round;
    if (threadIdx.x == 0) round = round + 1;  // expect: counter-reset
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = seen;
}

// Silent: each thread writes and reads its own element.
__global__ void own_element(const float* in, float* out) {
  __shared__ float mine[256];
  mine[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  out[blockIdx.x * 256 + threadIdx.x] = mine[threadIdx.x] * 2.f;
}

// Silent: every thread writes the same word (one value) and reads it.
__global__ void every_thread_writes(const int* in, int* out) {
  __shared__ int flag;
  flag = 1;
  out[blockIdx.x * blockDim.x + threadIdx.x] = flag + in[0];
}

// Silent: the pre-Volta warp-synchronous reduction through volatile shared
// memory (morally strong accesses; not this check's question).
__global__ void __launch_bounds__(32) volatile_warp_reduce(const float* in, float* out) {
  volatile __shared__ float red[32];
  red[threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
  if (threadIdx.x < 16) red[threadIdx.x] += red[threadIdx.x + 16];
  if (threadIdx.x == 0) out[blockIdx.x] = red[0] + red[1];
}

// Thread 0 stores a value and reads it back itself, the read under a guard that ORs the thread
// index with a block index (cuDNN's batch norm, `(%tid.x | blockInChannel) == 0`): the guard
// admits thread 0 alone, so the two accesses are one thread's. The check cannot read that guard
// as a range of thread indices, so the reader's threads are not decided: silent (session 28).
__global__ void own_value_under_or_guard(const float* in, float* out, int part) {
  __shared__ float stddev;
  if (threadIdx.x == 0) stddev = rsqrtf(in[blockIdx.x] + 1e-5f);
  if ((threadIdx.x | part) == 0) out[blockIdx.x] = stddev * 2.f;
}
