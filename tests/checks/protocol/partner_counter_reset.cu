// RUN: %fenceline check --verify --arch sm_90a %s
// barrier-init-race and a counter reset after the arrivals, in the shape of
// TensorRT-LLM's LamportFlags (FlashInfer's MoE all-reduce fusion,
// trtllm_moe_allreduce_fusion.cuh): every block bumps an arrival counter
// once; at the end block 0 waits until all gridDim.x arrivals are in, then
// advances the flag and resets the counter for the next launch.

struct LamportFlags {
  int* counter;
  int* flag;
};

// Fixed: the reset follows a wait on the counter that observed every arrival
// of this launch; the next launch's arrivals follow it in stream order.
__global__ void reset_after_all_arrived(LamportFlags flags, const float* __restrict__ in, float* out) {
  if (threadIdx.x == 0) atomicAdd(flags.counter, 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 2.0f;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    while (*reinterpret_cast<volatile int*>(flags.counter) != static_cast<int>(gridDim.x)) {
    }
    *flags.flag = (*flags.flag + 1) % 3;
    *flags.counter = 0;
  }
}

// Broken: the same counter zeroed by block 0 before it waits: the other
// blocks' arrivals may come before or after the store.
__global__ void reset_before_the_wait(LamportFlags flags, const float* __restrict__ in, float* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *flags.counter = 0;  // expect: barrier-init-race
  if (threadIdx.x == 0) atomicAdd(flags.counter, 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 2.0f;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    while (*reinterpret_cast<volatile int*>(flags.counter) != static_cast<int>(gridDim.x)) {
    }
    *flags.flag = (*flags.flag + 1) % 3;
  }
}
