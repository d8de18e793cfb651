// Issue 30, shape 10: polls through a read-modify-write. A loop that polls a
// flag with a relaxed atomic that returns the value (atom.add of 0, the idiom
// of DSLs without an atomic load such as Triton's
// tl.atomic_add(flag, 0, sem="relaxed"); atomicCAS(flag, v, v); atomicExch
// taking the flag) and then reads the guarded data is a spin without acquire,
// exactly like a relaxed ld poll.
// Shapes: Triton-like inline PTX atom.global.gpu.relaxed.add 0 executed by
// every thread of the block (as Triton's lowering does for a scalar); CUDA
// atomicCAS(flag, 1, 1); atomicExch taking a one-shot flag; a noinline poll
// helper; the fixed forms (atom.acquire; a fence.acq_rel.gpu after the loop;
// cuda::atomic_ref fetch_add(0, acquire)).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>

#include <cstdint>

__device__ __forceinline__ void produce(float* data, unsigned* flag) {
  data[threadIdx.x] = float(threadIdx.x) * 1.5f;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) atomicExch(flag, 1u);
}

// 1. Triton-like: every thread polls with a relaxed atom.add 0.
template <bool kAcquire>
__device__ __forceinline__ void triton_poll(float* data, unsigned* flag, float* out) {
  if (blockIdx.x == 0) {
    produce(data, flag);
  } else {
    unsigned seen;
    do {
      if (kAcquire)
        asm volatile("atom.global.gpu.acquire.add.u32 %0, [%1], 0;" : "=r"(seen) : "l"(flag) : "memory");
      else
        asm volatile("atom.global.gpu.relaxed.add.u32 %0, [%1], 0;" : "=r"(seen) : "l"(flag) : "memory");  // expect: acquire-missing
    } while (seen == 0);
    out[blockIdx.x * blockDim.x + threadIdx.x] = data[(threadIdx.x + 1) % blockDim.x];
  }
}
__global__ void triton_relaxed_add_zero_poll(float* data, unsigned* flag, float* out) { triton_poll<false>(data, flag, out); }
__global__ void triton_acquire_add_zero_poll(float* data, unsigned* flag, float* out) { triton_poll<true>(data, flag, out); }

// 2. atomicCAS(flag, 1, 1) as the poll, in a noinline helper; fixed with a
// fence after the loop.
__device__ __noinline__ void cas_poll(unsigned* flag) {
  while (atomicCAS(flag, 1u, 1u) != 1u) {  // expect: acquire-missing
  }
}
template <bool kFence>
__device__ __forceinline__ void cas_consumer(float* data, unsigned* flag, float* out) {
  if (blockIdx.x == 0) {
    produce(data, flag);
  } else {
    if (threadIdx.x == 0) {
      cas_poll(flag);
      if (kFence) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = data[(threadIdx.x * 3) % blockDim.x];
  }
}
__global__ void cas_poll_no_fence(float* data, unsigned* flag, float* out) { cas_consumer<false>(data, flag, out); }
__global__ void cas_poll_then_fence(float* data, unsigned* flag, float* out) { cas_consumer<true>(data, flag, out); }

// 3. atomicExch takes a one-shot flag (the consumer resets it as it reads
// it); fixed with cuda::atomic_ref exchange(acquire).
template <bool kAcquire>
__device__ __forceinline__ void exchange_take(float* data, unsigned* flag, float* out) {
  if (blockIdx.x == 0) {
    produce(data, flag);
  } else if (blockIdx.x == 1) {
    if (threadIdx.x == 0) {
      if (kAcquire) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
        while (f.exchange(0u, cuda::memory_order_acquire) == 0u) {
        }
      } else {
        while (atomicExch(flag, 0u) == 0u) {  // expect: acquire-missing
        }
      }
    }
    __syncthreads();
    out[threadIdx.x] = data[blockDim.x - 1 - threadIdx.x];
  }
}
__global__ void exchange_take_relaxed(float* data, unsigned* flag, float* out) { exchange_take<false>(data, flag, out); }
__global__ void exchange_take_acquire(float* data, unsigned* flag, float* out) { exchange_take<true>(data, flag, out); }

// 4. libcu++ fetch_add(0): relaxed (broken) / acquire (fixed).
template <cuda::memory_order kOrder>
__device__ __forceinline__ void fetch_add_poll(float* data, unsigned* flag, float* out) {
  if (blockIdx.x == 0) {
    produce(data, flag);
  } else if (threadIdx.x < 32) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
    while (f.fetch_add(0u, kOrder) == 0u) {  // expect: acquire-missing
    }
    out[blockIdx.x * 32 + threadIdx.x] = data[threadIdx.x * 2];
  }
}
__global__ void fetch_add_relaxed_poll(float* data, unsigned* flag, float* out) {
  fetch_add_poll<cuda::memory_order_relaxed>(data, flag, out);
}
__global__ void fetch_add_acquire_poll(float* data, unsigned* flag, float* out) {
  fetch_add_poll<cuda::memory_order_acquire>(data, flag, out);
}
