// Issue 30, shape 3: per-warp release. Warp i writes its part of the data,
// and a thread other than the writers raises a release flag for it: lane 0
// of warp i, or thread i of warp 0 (one thread per warp). The release orders
// the releasing thread's own writes only; the writers must synchronize with
// it first (__syncwarp() inside the warp, a barrier across warps) or every
// writer must release.
// Shapes: lane 0 of each warp, release store to a per-warp flag polled by
// another block; thread i of warp 0 raising flag i for warp i, red.release at
// system scope into a peer's flag table; an mbarrier per warp with arrival
// count 1 (the existing elected-arrive case, as a reference); thread i of
// warp 0 raising flag i of a local table after only a __syncwarp(); every
// thread releasing its own write (silent); the fixed forms.
// Thread i of warp 0 (`if (threadIdx.x < 8)`, a range inside one warp) is a
// releasing subset like any other: its release hands over the writes of the
// threads outside it (README, "rules needed", shape 3). The peer-table case is
// default tier: the flag's word and the data's buffer are entries of one
// by-value peer table (peer-table evidence), and the poll itself is not taken
// for the read of the data.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

// 1. Lane 0 of each warp publishes the warp's rows with a release store.
template <bool kSyncWarp>
__device__ __forceinline__ void rows_by_warp(float* rows, unsigned* flags, float* out) {
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (blockIdx.x == 0) {
    for (int j = 0; j < 4; ++j) rows[(warp * 4 + j) * 32 + lane] = float(warp * 1000 + j * 32 + lane);
    if (kSyncWarp) __syncwarp();
    if (lane == 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[warp]);
      f.store(1u, cuda::memory_order_release);  // expect: elected-arrive
    }
  } else if (blockIdx.x == 1) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[warp]);
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
    out[threadIdx.x] = rows[(warp * 4 + lane % 4) * 32 + (lane * 7) % 32];
  }
}
__global__ void lane0_releases_warp_rows(float* rows, unsigned* flags, float* out) { rows_by_warp<false>(rows, flags, out); }
__global__ void lane0_releases_after_syncwarp(float* rows, unsigned* flags, float* out) {
  rows_by_warp<true>(rows, flags, out);
}

// 2. Thread i of warp 0 signals peer i that warp i's slice has been written
// into that peer's buffer (a red.release.sys per peer, a rank-indexed table).
struct Peers {
  float* inbox[8];
  unsigned* ready[8];
};
template <bool kBarrier>
__device__ __forceinline__ void scatter(Peers p, const float* in, float* out, int rank) {
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;  // 8 warps, one per peer
  p.inbox[warp][rank * 32 + lane] = in[threadIdx.x];
  if (kBarrier) __syncthreads();
  if (threadIdx.x < 8)
    asm volatile("red.release.sys.global.add.u32 [%0], 1;" ::"l"(p.ready[threadIdx.x] + rank) : "memory");  // expect: elected-arrive
  if (threadIdx.x < 8) {
    unsigned v;
    do {
      asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p.ready[rank] + threadIdx.x) : "memory");
    } while (v == 0);
  }
  __syncthreads();
  out[threadIdx.x] = p.inbox[rank][warp * 32 + lane];
}
__global__ void thread_i_signals_for_warp_i(Peers p, const float* in, float* out, int rank) {
  scatter<false>(p, in, out, rank);
}
__global__ void thread_i_signals_after_barrier(Peers p, const float* in, float* out, int rank) {
  scatter<true>(p, in, out, rank);
}

// 3. An mbarrier per warp, arrival count 1, lane 0 arrives after the warp's
// shared-memory writes; the consumer warp group waits on all four.
template <bool kEveryLane>
__device__ __forceinline__ void per_warp_barriers(const float* in, float* out) {
  __shared__ float tile[4][32 * 4];
  __shared__ alignas(8) uint64_t ready[4];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x < 4) {
    cuda::ptx::mbarrier_init(&ready[threadIdx.x], kEveryLane ? 32 : 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  if (warp < 4) {
    for (int j = 0; j < 4; ++j) tile[warp][j * 32 + lane] = in[(warp * 4 + j) * 32 + lane];
    if (kEveryLane || lane == 0) (void)cuda::ptx::mbarrier_arrive(&ready[warp]);  // expect: elected-arrive
  } else {
    const unsigned w = threadIdx.x % 4;
    while (!cuda::ptx::mbarrier_try_wait_parity(&ready[w], 0)) {
    }
    out[threadIdx.x] = tile[w][(threadIdx.x * 5) % 128];
  }
}
__global__ void lane0_arrives_per_warp(const float* in, float* out) { per_warp_barriers<false>(in, out); }
__global__ void every_lane_arrives_per_warp(const float* in, float* out) { per_warp_barriers<true>(in, out); }

// 4. Thread i of warp 0 raises flag i of a local table (another block polls
// it) for the rows warp i wrote, after only a __syncwarp(): it gathers warp
// 0, not warp i. The flag is a release fetch_add; four warps. (With the
// bound `threadIdx.x < blockDim.x / 32` the releasing threads are not known
// to lie in one warp, and a __syncwarp() is taken to gather the writers:
// missed, see docs/checks/elected-arrive.md.) Fixed: __syncthreads() before
// the flags.
template <bool kBarrier>
__device__ __forceinline__ void rows_flagged_by_thread(float* rows, unsigned* flags, float* out) {
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (blockIdx.x == 0) {
    for (int j = 0; j < 2; ++j) rows[(warp * 2 + j) * 32 + lane] = float(j * 32 + lane);
    if (kBarrier) __syncthreads();
    else __syncwarp();
    if (threadIdx.x < 4) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[threadIdx.x]);
      f.fetch_add(1u, cuda::memory_order_release);  // expect: elected-arrive
    }
  } else if (blockIdx.x == 1) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[warp]);
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
    out[threadIdx.x] = rows[(warp * 2 + lane % 2) * 32 + (lane * 3) % 32];
  }
}
__global__ void __launch_bounds__(128) thread_i_flags_after_syncwarp(float* rows, unsigned* flags, float* out) {
  rows_flagged_by_thread<false>(rows, flags, out);
}
__global__ void __launch_bounds__(128) thread_i_flags_after_barrier(float* rows, unsigned* flags, float* out) {
  rows_flagged_by_thread<true>(rows, flags, out);
}

// 5. Every thread writes its own slot and raises its own flag with a release
// store (each thread releases its own write): silent.
__global__ void every_thread_releases_its_own(float* slots, unsigned* flags, float* out) {
  if (blockIdx.x == 0) {
    slots[threadIdx.x] = float(threadIdx.x);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[threadIdx.x]);
    f.store(1u, cuda::memory_order_release);
  } else if (blockIdx.x == 1) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[threadIdx.x]);
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
    out[threadIdx.x] = slots[threadIdx.x];
  }
}
