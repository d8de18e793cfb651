// Open false positive (docs/real-code.md, "float amax through integer atomics"): shape found in
// CUTLASS's FP8 GEMM epilogue with an absolute-maximum output (ScaledLinCombPerRowBiasEltActAmaxAux)
// under the stream-K scheduler (example 67's groupwise GEMM, gemm_fp8_groupwise). Blocks that
// own half of a tile hand partial sums over in a workspace (fence + atomicAdd, acquire poll);
// every block then stores its results and folds its absolute maximum into one global float with
// the integer-atomic trick: `atomicMax((int*)amax, bits)` for a non-negative value,
// `atomicMin((unsigned*)amax, bits)` for a negative one (`mov.b32 %r, %f`, then `atom.max.s32`
// or `atom.min.u32`). Those atomics accumulate data, like a float atomicAdd reduction; nobody
// polls the word to read the results, so they need no release. The checker once took them
// for a signal that published the result stores (release-missing at both atomics). The twin
// publishes its stores by raising an epoch word with a relaxed integer atomicMax that the
// epoch waiter polls: a real missing release.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Params {
  float* out;
  float* workspace;
  int* flags;
  float* amax;
  int* epoch;
};

__device__ __forceinline__ int load_acquire(const int* p) {
  int v;
  asm volatile("ld.global.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void atomic_max_float(float* address, float value) {
  if (value >= 0.f)
    atomicMax(reinterpret_cast<int*>(address), __float_as_int(value));
  else
    atomicMin(reinterpret_cast<unsigned*>(address), __float_as_uint(value));
}

// Odd blocks hand their partial tile to the even block of the pair (stream-K style, correct);
// even blocks store the sum. Returns this thread's result.
__device__ float split_tile(const Params& p, const float* in) {
  const int tile = blockIdx.x / 2;
  const int slot = tile * blockDim.x + threadIdx.x;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (blockIdx.x % 2 == 1) {
    p.workspace[slot] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(&p.flags[tile], 1);
    }
  } else {
    if (threadIdx.x == 0)
      while (load_acquire(&p.flags[tile]) == 0) {
      }
    __syncthreads();
    v += p.workspace[slot];
    p.out[slot] = v;
  }
  return v;
}

// Clean: the absolute maximum of the results, reduced into *amax.
__global__ void split_tiles_then_amax(const __grid_constant__ Params p, const float* in) {
  const float v = split_tile(p, in);
  atomic_max_float(p.amax, fabsf(v));
}

// Broken twin: the results are published by raising the epoch, with no release.
__global__ void split_tiles_then_epoch(const __grid_constant__ Params p, const float* in, int iteration) {
  split_tile(p, in);
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(p.epoch, iteration);  // expect-strict: release-missing
}

__global__ void wait_epoch(const __grid_constant__ Params p, float* copy, int iteration) {
  if (threadIdx.x == 0)
    while (load_acquire(p.epoch) < iteration) {
    }
  __syncthreads();
  copy[threadIdx.x] = p.out[threadIdx.x];
}
