// RUN: %fenceline check --verify --arch sm_90a %s
// barrier-init-race: the initializing store's value need not be a constant.
// `*bar = MAGIC - gridDim.x` (the cooperative-groups style of counting up to
// a sign flip) races with the other blocks' arrivals exactly like `*bar = 0`.

constexpr unsigned kMagic = 0x80000000u;

__device__ __forceinline__ void st_relaxed_gpu(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Broken: block 0's thread 0 sets the counter from gridDim.x, in the launch
// that arrives on it.
__global__ void init_from_grid_size(unsigned* bar, float* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *bar = kMagic - gridDim.x;  // expect: barrier-init-race
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(bar, 1u);
    while (static_cast<int>(*(volatile unsigned*)bar) < 0) {
    }
    __threadfence();
  }
  __syncthreads();
  out[blockIdx.x] = 1.0f;
}

// Broken: the expected count comes from a kernel parameter, stored through an
// inline-asm relaxed store.
__global__ void init_from_parameter(unsigned* bar, unsigned expected, float* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) st_relaxed_gpu(bar, expected);  // expect: barrier-init-race
  if (threadIdx.x == 0) {
    __threadfence();
    atomicSub(bar, 1u);
    while (*(volatile unsigned*)bar != 0) {
    }
    __threadfence();
  }
  __syncthreads();
  out[blockIdx.x] = 2.0f;
}

// Fixed: the last arriver re-arms the counter with gridDim.x for the next
// launch; that store is guarded by the arrival's return value, not by ids.
__global__ void last_arriver_rearms(unsigned* bar, unsigned* generation, float* out) {
  if (threadIdx.x == 0) {
    unsigned gen = *(volatile unsigned*)generation;
    __threadfence();
    if (atomicSub(bar, 1u) == 1) {
      *bar = gridDim.x;
      __threadfence();
      atomicAdd(generation, 1u);
    } else {
      while (*(volatile unsigned*)generation == gen) {
      }
    }
    __threadfence();
  }
  __syncthreads();
  out[blockIdx.x] = 3.0f;
}
