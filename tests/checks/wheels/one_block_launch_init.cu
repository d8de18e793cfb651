// barrier-init-race on a store that only a launch of one block makes (issue 34, shape P6: Eigen's
// full reduction in TensorFlow). The output's initial value is stored by the first thread with a
// plain store only when the grid has one block (`gridDim.x == 1`); with more blocks, the block
// that wins a CAS on a semaphore initializes it with atomicExch and the others wait for the
// semaphore; then every block adds its part with an atomic. The plain store and the other
// blocks' atomics never run in one launch: in the launch that stores, no other block exists.
// A second form: the store and the updates sit on opposite outcomes of a kernel parameter (a
// launch-uniform condition), so no launch runs both.
// Twins: the plain store by block 0's first thread whatever the grid's size (true: a late block 0
// erases the other blocks' sums), and the same store under the parameter that also lets the
// atomics run.
// The semaphore hand-off's own links (the exchange as a signal with no wait seen, the CAS poll,
// the ticket increment) are undecided: strict tier, as in Eigen's kernel.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s

__device__ __forceinline__ float block_part(const float* in, int n, int first) {
  float acc = 0.0f;
  for (int k = 0; k < 4; ++k) {
    const int i = first + k * 256;
    if (i < n) acc += in[i];
  }
  return acc;
}

// Blocks of 256 threads, 4 elements each.

// Safe: the plain store runs only in a launch of one block.
__global__ void sum_one_block_store(const float* in, int n, float* out, unsigned* sem) {
  const int first = blockIdx.x * 1024 + threadIdx.x;
  if (gridDim.x == 1) {
    if (first == 0) *out = 0.0f;
  } else if (threadIdx.x == 0) {
    if (atomicCAS(sem, 0u, 1u) == 0u) {
      atomicExch(out, 0.0f);  // expect-strict: release-missing
      __threadfence();
      atomicExch(sem, 2u);
    } else {
      while (atomicCAS(sem, 2u, 2u) < 2u) {  // expect-strict: acquire-missing
      }
    }
  }
  __syncthreads();
  atomicAdd(out, block_part(in, n, first));
  if (gridDim.x > 1 && threadIdx.x == 0) atomicInc(sem, gridDim.x + 1);  // expect-strict: release-missing
}

// Broken twin: block 0's first thread stores the initial value in every launch.
__global__ void sum_block0_store(const float* in, int n, float* out) {
  const int first = blockIdx.x * 1024 + threadIdx.x;
  if (first == 0) *out = 0.0f;  // expect: barrier-init-race
  __syncthreads();
  atomicAdd(out, block_part(in, n, first));
}

// Safe: a parameter picks the mode; the store's mode has no atomic update.
__global__ void sum_store_or_accumulate(const float* in, int n, float* out, int accumulate) {
  const int first = blockIdx.x * 1024 + threadIdx.x;
  if (!accumulate) {
    if (first == 0) *out = in[0];
  } else {
    atomicAdd(out, block_part(in, n, first));
  }
}

// Broken twin: the store's mode also accumulates.
__global__ void sum_store_and_accumulate(const float* in, int n, float* out, int zero) {
  const int first = blockIdx.x * 1024 + threadIdx.x;
  if (zero) {
    if (first == 0) *out = 0.0f;  // expect: barrier-init-race
  }
  __syncthreads();
  atomicAdd(out, block_part(in, n, first));
}
