// Two block collectives share one shared buffer with no barrier between them,
// nvFuser's warp reduction runtime:
// https://github.com/NVIDIA/Fuser/issues/271 (validation errors),
// fix https://github.com/NVIDIA/Fuser/pull/489 (merged, "add sync to warp
// reduction runtime avoid smem data race"). The generated kernel ran two warp
// reductions and then two block broadcasts, all four through the same shared
// memory address, and the warp reduction did not end with a barrier: a warp
// that finished the first collective could overwrite the buffer while another
// warp still read the previous collective's value from it (a write after
// read across warps). The fix ends the warp reduction with a block barrier.
// Our kernel: each warp reduces its values with shuffles, lane 0 of warp w
// stores the partial in red[w], a __syncthreads(), and every thread sums the
// eight partials; then thread 0 stores the block's broadcast value in red[0]
// and, after a __syncthreads(), every thread reads it. Broken: no barrier
// between the sums' reads and thread 0's store; fixed: a __syncthreads() at
// the end of the reduction.
//
// shared-race (session 28, branch recall28; shape 18 in README.md) reports
// thread 0's store: every thread reads red[0] (the unrolled sum) and thread 0
// then overwrites red[0] with no barrier between (write after read, one word
// for every thread of the block). Main's binary (fenceline-m28a) has no such
// check.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

template <bool kEndBarrier>
__device__ __forceinline__ void reduce_then_broadcast(const float* in, const float* scale, float* out) {
  __shared__ float red[8];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float v = in[blockIdx.x * 256 + threadIdx.x];
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  if (lane == 0) red[warp] = v;
  __syncthreads();
  float sum = 0.f;
#pragma unroll
  for (int w = 0; w < 8; ++w) sum += red[w];
  if (kEndBarrier) __syncthreads();
  if (threadIdx.x == 0) red[0] = scale[blockIdx.x];  // expect: shared-race
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = sum * red[0];
}

__global__ void __launch_bounds__(256) broadcast_over_unread_partials(const float* in, const float* s, float* out) {
  reduce_then_broadcast<false>(in, s, out);
}
__global__ void __launch_bounds__(256) broadcast_after_end_barrier(const float* in, const float* s, float* out) {
  reduce_then_broadcast<true>(in, s, out);
}
