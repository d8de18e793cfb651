// Issue 30, shape 9: a device-to-host FIFO push. The kernel reserves a slot
// with a relaxed fetch-and-add on a device-side head counter, writes the
// payload it wants the host proxy to act on, and then writes the trigger
// into the host-mapped slot; the host polls the trigger. The trigger store is
// the signal (it needs a release at system scope for the data written before
// it); the head fetch-and-add is device-only bookkeeping, not a signal, and
// must not be reported.
// Shapes: a volatile 16-byte trigger store; a relaxed system-scope
// cuda::atomic_ref store of a packed trigger; an atomicExch_system trigger;
// the fixed forms (st.release.sys; __threadfence_system() before a volatile
// store; a release atomic_ref store).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>

#include <cstdint>

struct Fifo {
  uint64_t* slots;            // host-mapped triggers, two words each
  unsigned long long* head;   // device-side reservation counter
  unsigned long long* tail;   // written by the host
  unsigned long long size;
};

__device__ __forceinline__ uint64_t* reserve(Fifo f) {
  const unsigned long long slot = atomicAdd(f.head, 1ull);  // bookkeeping: not a signal
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> tail(*f.tail);
  while (slot - tail.load(cuda::memory_order_relaxed) >= f.size) {
  }
  return f.slots + 2 * (slot % f.size);
}

// 1. A 16-byte volatile trigger store (broken) / st.release.sys (fixed).
template <bool kRelease>
__device__ __forceinline__ void put_request(Fifo f, float* staging, const float* in, uint64_t peer) {
  staging[threadIdx.x] = in[threadIdx.x] * 0.5f;  // the payload the host proxy will send
  __syncthreads();
  if (threadIdx.x == 0) {
    uint64_t* t = reserve(f);
    const uint64_t lo = reinterpret_cast<uint64_t>(staging), hi = (peer << 32) | (blockDim.x * 4u);
    if (kRelease)
      asm volatile("st.release.sys.global.v2.u64 [%0], {%1, %2};" ::"l"(t), "l"(lo), "l"(hi) : "memory");
    else
      asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(t), "l"(lo), "l"(hi) : "memory");  // expect: release-missing
  }
}
__global__ void push_volatile(Fifo f, float* staging, const float* in, uint64_t peer) {
  put_request<false>(f, staging, in, peer);
}
__global__ void push_release(Fifo f, float* staging, const float* in, uint64_t peer) {
  put_request<true>(f, staging, in, peer);
}

// 2. One packed 8-byte trigger, a relaxed system-scope atomic_ref store
// (broken) / __threadfence_system() before it (fixed).
template <bool kFence>
__device__ __forceinline__ void put_packed(Fifo f, float* staging, const float* in) {
  staging[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] + 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint64_t* t = reserve(f);
    if (kFence) __threadfence_system();
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system> trig(*t);
    trig.store((uint64_t(blockIdx.x) << 32) | 1u, cuda::memory_order_relaxed);  // expect: release-missing
  }
}
__global__ void push_packed_relaxed(Fifo f, float* staging, const float* in) { put_packed<false>(f, staging, in); }
__global__ void push_packed_fenced(Fifo f, float* staging, const float* in) { put_packed<true>(f, staging, in); }

// 3. An exchange at system scope as the trigger (broken) / a release store.
template <bool kRelease>
__device__ __forceinline__ void put_exchange(Fifo f, float* staging, const float* in) {
  staging[threadIdx.x] = in[threadIdx.x] * 4.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long* t = reinterpret_cast<unsigned long long*>(reserve(f));
    if (kRelease) {
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> trig(*t);
      trig.store(reinterpret_cast<unsigned long long>(staging), cuda::memory_order_release);
    } else {
      atomicExch_system(t, reinterpret_cast<unsigned long long>(staging));  // expect: release-missing
    }
  }
}
__global__ void push_exchange(Fifo f, float* staging, const float* in) { put_exchange<false>(f, staging, in); }
__global__ void push_release_store(Fifo f, float* staging, const float* in) { put_exchange<true>(f, staging, in); }
