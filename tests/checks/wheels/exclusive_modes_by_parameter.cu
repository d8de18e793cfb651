// Shape F4 of the wheels sample (docs/real-code.md, "The wheels sample, second draw"): a kernel
// parameter selects one of two reduction modes for the whole launch. In the atomic mode the first
// block zeroes the output and every block counts itself with a relaxed atomic; in the serial mode
// each block waits for its turn on the same lock word, reads the output, adds its part, and hands
// the turn on with a release. The zeroing write and the relaxed count (atomic mode) and the wait
// and the read (serial mode) are all in the kernel, but the parameter is the same for every thread
// of the launch: no launch runs both modes, so no wait ever observes that count. Silent in both
// tiers.
// The twin selects the mode by the block index: both modes run in one launch, the serial blocks'
// wait may observe the atomic blocks' count and read the zeros: release-missing.
// A third kernel alternates the modes by the trip of a loop: release-missing as well.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ void wait_turn(const unsigned* lock, unsigned turn) {
  unsigned v;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(lock) : "memory");
  } while (v != turn);
}
__device__ __forceinline__ void pass_turn(unsigned* lock, unsigned turn) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(lock), "r"(turn) : "memory");
}

// Safe: one mode per launch.
__global__ void reduce_mode_by_parameter(unsigned* lock, float* out, const float* __restrict__ parts, int n,
                                         bool use_atomic) {
  const int i = threadIdx.x;
  const float part = parts[blockIdx.x * blockDim.x + i];
  if (use_atomic) {
    if (blockIdx.x == 0) out[i] = 0.0f;
    __syncthreads();
    if (i == 0) atomicAdd(lock, 1u);
    atomicAdd(&out[i], part);
  } else {
    if (i == 0) wait_turn(lock, blockIdx.x);
    __syncthreads();
    out[i] = out[i] + part;
    __syncthreads();
    if (i == 0) pass_turn(lock, blockIdx.x + 1);
  }
}

// Broken twin: the block index selects the mode, so both run in one launch.
__global__ void reduce_mode_by_block(unsigned* lock, float* out, const float* __restrict__ parts, int n,
                                     int atomic_blocks) {
  const int i = threadIdx.x;
  const float part = parts[blockIdx.x * blockDim.x + i];
  if (blockIdx.x < atomic_blocks) {
    if (blockIdx.x == 0) out[i] = 0.0f;
    __syncthreads();
    if (i == 0) atomicAdd(lock, 1u);  // expect: release-missing
    atomicAdd(&out[i], part);
  } else {
    if (i == 0) wait_turn(lock, blockIdx.x);
    __syncthreads();
    out[i] = out[i] + part;
    __syncthreads();
    if (i == 0) pass_turn(lock, blockIdx.x + 1);
  }
}

// Broken twin: the mode alternates with the trip of a loop. The condition is the same for every
// thread at one trip, but both modes run in one launch (a block's count of one trip may be observed
// by another block's wait of the next): a loop counter selects no mode.
__global__ void reduce_mode_by_trip(unsigned* lock, float* out, const float* __restrict__ parts, int n, int trips) {
  const int i = threadIdx.x;
  for (int t = 0; t < trips; ++t) {
    const float part = parts[(t * gridDim.x + blockIdx.x) * blockDim.x + i];
    if (t & 1) {
      if (blockIdx.x == 0) out[t * blockDim.x + i] = 0.0f;
      __syncthreads();
      if (i == 0) atomicAdd(lock, 1u);  // expect: release-missing
      atomicAdd(&out[t * blockDim.x + i], part);
    } else {
      if (i == 0) wait_turn(lock, blockIdx.x);
      __syncthreads();
      out[(t + 1) * blockDim.x + i] = out[(t + 1) * blockDim.x + i] + part;
      __syncthreads();
      if (i == 0) pass_turn(lock, blockIdx.x + 1);
    }
  }
}
