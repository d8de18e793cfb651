// What a volatile store states about its reader. The PTX ISA treats
// st.volatile as st.relaxed.sys, but the .sys is the qualifier's, not the
// kernel's choice: volatile is how kernels wrote their in-GPU flags before
// .relaxed existed. A volatile store is not `sys-scope-signal` evidence that
// the host or another device reads what it publishes.
//
// 1. A result published to a word of a parameter (the host's or a later
//    kernel's) with a volatile store: the partner is outside the PTX and the
//    volatile store does not say it is the host: strict tier only.
// 2. The broken twin: the word is written with an explicit .sys store
//    (cuda::atomic_ref<..., thread_scope_system>, relaxed: st.relaxed.sys):
//    the kernel states that the host or another device reads it, and nothing
//    releases the result before it: release-missing.
// (volatile_shared_pointer_local.cu: a volatile store to shared memory through
// a pointer kept in local memory is no signal at all.)
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

#include <cuda/atomic>

__global__ void publish_with_volatile_done(float* results, const float* __restrict__ in, unsigned* done) {
  results[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 2.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) *(volatile unsigned*)done = 1u;  // expect-strict: release-missing
}

__global__ void publish_with_sys_done(float* results, const float* __restrict__ in, unsigned* done) {
  results[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 2.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*done).store(1u, cuda::memory_order_relaxed);  // expect: release-missing
  }
}
