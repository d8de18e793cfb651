// A split reduction by atomics (the atomic-add mode of vLLM's MoE-Marlin with an fp16 output,
// docs/real-code.md "MoE-Marlin's 510 lock stores": the recall gap its triage left). The first
// slice zeroes its part of the output, then one thread stores the lock word after the block
// barrier; the other slices wait for the lock with an acquire and add their partial sums into the
// output with floating-point atomics (`red.global.add.f32`, `red.global.add.noftz.f16x2`, or an
// `atom.global.add.f32` whose old value is kept). The barrier orders the zeros before the lock
// store at CTA scope only and the store is weak: nothing orders the zeros before another block's
// add, and a zero that lands after it erases that block's part of the sum. A floating-point atomic
// reads the bytes it updates (model::isDataUpdate): it is the reader the release needs.
// The fixed twins: a fence between the barrier and the lock store, or a release store.
// A relaxed poll followed only by floating-point atomics is not judged by acquire-missing
// (nothing of an atomic is cached in L1; the order of an atomic after a relaxed poll that decides
// it is disputed): the fourth safe kernel stays silent.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cuda_fp16.h>

__device__ __forceinline__ void wait_negative(const int* lock) {
  int v;
  do {
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(lock) : "memory");
  } while (v >= 0);
}

__device__ __forceinline__ void wait_negative_relaxed(const int* lock) {
  int v;
  do {
    asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(lock) : "memory");
  } while (v >= 0);
}

// Broken: float reduction (red.global.add.f32).
__global__ void zero_then_red_f32(int* lock, float* out, const float* __restrict__ parts, int slices) {
  const int i = threadIdx.x;
  if (blockIdx.x == 0) {
    out[i] = 0.0f;
    __syncthreads();
    if (i == 0) lock[0] = 1 - slices;  // expect: release-missing
  } else {
    if (i == 0) wait_negative(lock);
    __syncthreads();
    atomicAdd(&out[i], parts[blockIdx.x * blockDim.x + i]);
  }
}

// Broken: packed half reduction (red.global.add.noftz.f16x2).
__global__ void zero_then_red_h2(int* lock, __half2* out, const __half2* __restrict__ parts, int slices) {
  const int i = threadIdx.x;
  if (blockIdx.x == 0) {
    out[i] = __half2(__float2half(0.f), __float2half(0.f));
    __syncthreads();
    if (i == 0) lock[0] = 1 - slices;  // expect: release-missing
  } else {
    if (i == 0) wait_negative(lock);
    __syncthreads();
    atomicAdd(&out[i], parts[blockIdx.x * blockDim.x + i]);
  }
}

// Broken: an atomic whose old value is kept (atom.global.add.f32).
__global__ void zero_then_atom_f32(int* lock, float* out, float* old, const float* __restrict__ parts, int slices) {
  const int i = threadIdx.x;
  if (blockIdx.x == 0) {
    out[i] = 0.0f;
    __syncthreads();
    if (i == 0) lock[0] = 1 - slices;  // expect: release-missing
  } else {
    if (i == 0) wait_negative(lock);
    __syncthreads();
    old[blockIdx.x * blockDim.x + i] = atomicAdd(&out[i], parts[blockIdx.x * blockDim.x + i]);
  }
}

// Fixed: a fence between the barrier and the lock store.
__global__ void zero_fence_then_red_h2(int* lock, __half2* out, const __half2* __restrict__ parts, int slices) {
  const int i = threadIdx.x;
  if (blockIdx.x == 0) {
    out[i] = __half2(__float2half(0.f), __float2half(0.f));
    __syncthreads();
    if (i == 0) {
      __threadfence();
      lock[0] = 1 - slices;
    }
  } else {
    if (i == 0) wait_negative(lock);
    __syncthreads();
    atomicAdd(&out[i], parts[blockIdx.x * blockDim.x + i]);
  }
}

// Fixed: a release store of the lock.
__global__ void zero_release_then_red_f32(int* lock, float* out, const float* __restrict__ parts, int slices) {
  const int i = threadIdx.x;
  if (blockIdx.x == 0) {
    out[i] = 0.0f;
    __syncthreads();
    if (i == 0) asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(lock), "r"(1 - slices) : "memory");
  } else {
    if (i == 0) wait_negative(lock);
    __syncthreads();
    atomicAdd(&out[i], parts[blockIdx.x * blockDim.x + i]);
  }
}

// Safe for acquire-missing: the release is right, the poll relaxed, and only atomics follow it.
__global__ void relaxed_poll_then_red_f32(int* lock, float* out, const float* __restrict__ parts, int slices) {
  const int i = threadIdx.x;
  if (blockIdx.x == 0) {
    out[i] = 0.0f;
    __syncthreads();
    if (i == 0) {
      __threadfence();
      lock[0] = 1 - slices;
    }
  } else {
    if (i == 0) wait_negative_relaxed(lock);
    __syncthreads();
    atomicAdd(&out[i], parts[blockIdx.x * blockDim.x + i]);
  }
}
