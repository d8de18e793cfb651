// counter-reset on a per-warp slot that one lane writes and reads (session 24, cuVS's Vamana
// search, shape R): a block of 128 threads keeps one shared counter per warp, `count[warp]`,
// where warp = threadIdx.x >> 5. Lane 0 of each warp resets its warp's counter, and in each round,
// after a warp reduction, lane 0 reads the counter and stores it plus one; each `if` tests
// `(threadIdx.x & 31) == 0` again (nvcc evaluates some of them as their own branches).
//  - Safe: only lane 0 touches its warp's counter, and the other lanes get its value through
//    __shfl_sync. The word each read names is written by no thread but the reader: program order
//    orders every pair, and no barrier is needed (model/OwnWords.h: the guards and the address
//    evaluated for each thread index of the declared block). No finding in either tier.
//  - Broken twin: every lane reads its warp's counter after lane 0's update, with no __syncwarp()
//    between: lanes 1-31 may read it before lane 0 wrote it (and, round after round, lane 0's
//    next rewrite races with their read). counter-reset stays in the default tier at the reset and
//    at the rewrite.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s

// Safe: lane 0 alone reads and writes its warp's counter.
__global__ void __launch_bounds__(128) own_lane(const float* __restrict__ dist, int rounds, float bound,
                                                int* __restrict__ out) {
  __shared__ int count[4];
  const unsigned warp = threadIdx.x >> 5;
  if ((threadIdx.x & 31) == 0) count[warp] = 0;
  for (int r = 0; r < rounds; ++r) {
    float d = dist[(blockIdx.x * rounds + r) * 128 + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) d += __shfl_down_sync(0xffffffffu, d, o);
    if ((threadIdx.x & 31) == 0 && d < bound) {
      const int seen = count[warp];
      if (seen < 64) count[warp] = seen + 1;
    }
    const int seen = __shfl_sync(0xffffffffu, (threadIdx.x & 31) == 0 ? count[warp] : 0, 0);
    if (seen >= 64) break;
  }
  if ((threadIdx.x & 31) == 0) out[blockIdx.x * 4 + warp] = count[warp];
}

// Broken twin: every lane reads the counter lane 0 writes.
__global__ void __launch_bounds__(128) all_lanes(const float* __restrict__ dist, int rounds, float bound,
                                                 int* __restrict__ out) {
  __shared__ int count[4];
  const unsigned warp = threadIdx.x >> 5;
  if ((threadIdx.x & 31) == 0) count[warp] = 0;  // expect: counter-reset
  for (int r = 0; r < rounds; ++r) {
    float d = dist[(blockIdx.x * rounds + r) * 128 + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) d += __shfl_down_sync(0xffffffffu, d, o);
    if ((threadIdx.x & 31) == 0 && d < bound) {
      const int seen = count[warp];
      if (seen < 64) count[warp] = seen + 1;  // expect: counter-reset
    }
    if (count[warp] >= 64) break;
  }
  if ((threadIdx.x & 31) == 0) out[blockIdx.x * 4 + warp] = count[warp];
}
