// Issue 30, shape 2: the signalling threads fence only themselves. A fence
// orders the executing thread's accesses only; when several threads wrote the
// data and some other thread (or a few threads, one per peer) fence and
// signal, the writers must be gathered by a barrier first (then one fence by
// the signaller covers them by cumulativity), or every writer must fence and
// a barrier must separate those fences from the signal.
// Shapes: threads tid < npeers signalling peer GPUs through a rank-indexed
// table; every thread fences but only thread 0 signals, no barrier; the
// fence in a noinline helper; cuda::atomic_ref release stores by the
// signalling threads (a release store is the same as fence + relaxed store).
// Variant 1 is strict tier: its reader link rests on pointers loaded from a
// local copy of the peer table (distinct-pointers). Variant 3 is elected-arrive's
// rule for a subset of threads (threadIdx.x < 4) releasing other threads' data.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cuda/atomic>

#include <cstdint>

struct Peers {
  float* data[8];     // peer receive buffers
  unsigned* flag[8];  // peer flags, one slot per sender rank
};

__device__ __forceinline__ void wait_flag(unsigned* f, unsigned round) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_system> a(*f);
  while (a.load(cuda::memory_order_acquire) < round) {
  }
}

// 1. Each of threads 0 .. npeers-1 fences and signals one peer; the block's
// other threads wrote the data those peers read. Fixed: __syncthreads() first.
template <bool kBarrier>
__device__ __forceinline__ void push(Peers p, const float* in, float* out, int rank, int npeers, unsigned round) {
  for (int q = 0; q < npeers; ++q) p.data[q][rank * blockDim.x + threadIdx.x] = in[threadIdx.x] + float(q);
  if (kBarrier) __syncthreads();
  if (threadIdx.x < npeers) {
    __threadfence_system();
    *(volatile unsigned*)&p.flag[threadIdx.x][rank] = round;  // expect-strict: release-missing
  }
  if (threadIdx.x < npeers) wait_flag(&p.flag[rank][threadIdx.x], round);
  __syncthreads();
  float s = 0.f;
  for (int q = 0; q < npeers; ++q) s += p.data[rank][q * blockDim.x + threadIdx.x];
  out[threadIdx.x] = s;
}
__global__ void per_peer_signal_no_barrier(Peers p, const float* in, float* out, int rank, int npeers,
                                           unsigned round) {
  push<false>(p, in, out, rank, npeers, round);
}
__global__ void per_peer_signal_after_barrier(Peers p, const float* in, float* out, int rank, int npeers,
                                              unsigned round) {
  push<true>(p, in, out, rank, npeers, round);
}

// 2. Every thread fences, thread 0 signals another block; no barrier between
// the other threads' fences and the signal. Fixed: every thread fences, then
// __syncthreads(), then the signal. The fence is a noinline helper.
__device__ __noinline__ void publish_fence() { __threadfence(); }
template <bool kBarrier>
__device__ __forceinline__ void handoff(float* buf, unsigned* flag, float* out) {
  if (blockIdx.x == 0) {
    buf[threadIdx.x] = float(threadIdx.x) * 0.25f;
    publish_fence();
    if (kBarrier) __syncthreads();
    if (threadIdx.x == 0) atomicExch(flag, 1u);  // expect: release-missing
  } else if (blockIdx.x == 1) {
    if (threadIdx.x == 0) {
      while (atomicAdd(flag, 0u) == 0) {
      }
      __threadfence();
    }
    __syncthreads();
    out[threadIdx.x] = buf[(threadIdx.x + 7) % blockDim.x];
  }
}
__global__ void every_thread_fences_no_barrier(float* buf, unsigned* flag, float* out) { handoff<false>(buf, flag, out); }
__global__ void every_thread_fences_then_barrier(float* buf, unsigned* flag, float* out) {
  handoff<true>(buf, flag, out);
}

// 3. Release stores by the signalling threads (one per quarter of the data),
// cuda::atomic_ref: the release orders the signaller's own writes only. A
// release operation (not a fence) by threads other than the writers is the
// elected-arrive rule's (docs/checks/elected-arrive.md; the contract's
// "elected release" names "each of several signalling threads").
template <bool kBarrier>
__device__ __forceinline__ void quarters(float* buf, unsigned* flags, float* out) {
  if (blockIdx.x == 0) {
    for (int i = threadIdx.x; i < 4 * 256; i += blockDim.x) buf[i] = float(i);
    if (kBarrier) __syncthreads();
    if (threadIdx.x < 4) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[threadIdx.x]);
      f.store(1u, cuda::memory_order_release);  // expect: elected-arrive
    }
  } else if (blockIdx.x == 1) {
    const unsigned q = threadIdx.x / 64;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[q]);
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
    out[threadIdx.x] = buf[q * 256 + (threadIdx.x % 64) * 4];
  }
}
__global__ void quarter_release_stores_no_barrier(float* buf, unsigned* flags, float* out) {
  quarters<false>(buf, flags, out);
}
__global__ void quarter_release_stores_after_barrier(float* buf, unsigned* flags, float* out) {
  quarters<true>(buf, flags, out);
}
