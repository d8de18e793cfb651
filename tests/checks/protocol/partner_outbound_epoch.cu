// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --strict --verify --arch sm_90a %s
// Outbound flags (no poll in the kernel: the reader is the host or a later
// kernel) are judged on clear evidence only: data written, then the flag
// raised. The shape of FlashInfer's PCIe all-reduce entry
// (advance_scratch_epoch): each block reads a rank-local epoch word, counts
// its arrival in the word next to it, and the last block resets the count and
// flips the epoch with volatile stores. Those atomics and stores are the
// protocol's own state on the flag's struct, not data the flip publishes:
// nothing to release. The state pointer is a field of a __grid_constant__
// parameter struct (read through the parameter's address). The broken twins
// publish data with the flip: a result in another buffer, or a plain store of
// a value next to the flag. A volatile flip does not say who reads it (the
// host during the launch, or a later kernel that the launch order already
// orders; session 24, shape V): those twins are strict tier. The twin that
// flips with an explicit .sys store says the host reads it: a warning.

struct EpochParams {
  int* epoch_state;  // [0] the epoch, [1] the arrival count, [2] a value for the reader
  float* result;
  const float* input;
  int n;
};

__device__ __forceinline__ void store_volatile(int* at, int value) {
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(at), "r"(value) : "memory");
}
__device__ __forceinline__ void store_relaxed_sys(int* at, int value) {
  asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(at), "r"(value) : "memory");
}
__device__ __forceinline__ int load_volatile(const int* at) {
  int v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(at) : "memory");
  return v;
}

// Clean: the epoch this call uses, retired by the last block to arrive.
__device__ __forceinline__ int advance_epoch(int* state) {
  const int epoch = load_volatile(state) & 1;
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(state + 1, 1) == static_cast<int>(gridDim.x) - 1) {
    store_volatile(state + 1, 0);
    store_volatile(state, epoch ^ 1);
  }
  return epoch;
}

__global__ void epoch_only(const __grid_constant__ EpochParams p) {
  const int epoch = advance_epoch(p.epoch_state);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += gridDim.x * blockDim.x)
    p.result[i] = p.input[i] * (epoch ? 2.f : 1.f);
}

// Broken: the last block writes the total, then flips the epoch the host polls.
__global__ void epoch_publishes_result(const __grid_constant__ EpochParams p, float total) {
  __syncthreads();
  int* state = p.epoch_state;
  if (threadIdx.x == 0 && atomicAdd(state + 1, 1) == static_cast<int>(gridDim.x) - 1) {
    p.result[0] = total;
    store_volatile(state, load_volatile(state) ^ 1);  // expect-strict: release-missing
  }
}

// Broken: a value for the reader stored next to the epoch, then the flip.
__global__ void epoch_publishes_value(const __grid_constant__ EpochParams p, int value) {
  __syncthreads();
  int* state = p.epoch_state;
  if (threadIdx.x == 0 && atomicAdd(state + 1, 1) == static_cast<int>(gridDim.x) - 1) {
    state[2] = value;
    store_volatile(state, load_volatile(state) ^ 1);  // expect-strict: release-missing
  }
}

// Broken: the same flip of the epoch after the total, with a relaxed .sys
// store: the kernel states that the host reads it.
__global__ void epoch_publishes_result_sys(const __grid_constant__ EpochParams p, float total) {
  __syncthreads();
  int* state = p.epoch_state;
  if (threadIdx.x == 0 && atomicAdd(state + 1, 1) == static_cast<int>(gridDim.x) - 1) {
    p.result[0] = total;
    store_relaxed_sys(state, load_volatile(state) ^ 1);  // expect: release-missing
  }
}
