// Issue 30, shape 5: counter resets. A counter (or a phase word) that a
// protocol polls is written back to its initial value while other threads may
// still need to observe the old value, or before the next round's arrivals,
// or the reset hits the wrong word.
// Shapes (broken): the last arriver resets the counter that the others wait
// on, so a waiter can miss the completed count; every block resets the
// counter after its own wait, racing late waiters and the next launch's...
// next round's arrivals; a generation scheme whose last arriver resets the
// generation word instead of the counter. Fixed: a generation word that only
// grows (the last arriver resets the count, then bumps the generation);
// cooperative groups' grid.sync(); an epoch target that grows with each use.
// Shapes of code: inline PTX, cuda::atomic_ref, a noinline barrier, loops.
// counter-reset reports each broken reset (docs/checks/counter-reset.md).
// Before the check, release-missing took the relaxed resets of variants 1
// and 2 for signals that publish the data (a reset to 0 satisfies no waiter
// there: they wait for the count to reach gridDim.x; the protocol model no
// longer counts such a store as a signal), and took the relaxed count reset
// of the fixed generation barrier for a flag to the host (strict tier; a
// constant stored to the word a ticket of the kernel counts on is the count's
// reset, not an outbound signal).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cooperative_groups.h>
#include <cuda/atomic>

namespace cg = cooperative_groups;
using device_atomic = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;

// 1. The last arriver resets at once the count the others wait for.
__device__ __noinline__ void barrier_reset_by_last(unsigned* count) {
  __syncthreads();
  if (threadIdx.x == 0) {
    device_atomic c(*count);
    if (c.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1) {
      c.store(0u, cuda::memory_order_relaxed);  // expect: counter-reset
    } else {
      while (c.load(cuda::memory_order_acquire) < gridDim.x) {  // may never see gridDim.x
      }
    }
  }
  __syncthreads();
}
__global__ void last_arriver_resets_count(float* data, unsigned* count) {
  data[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  barrier_reset_by_last(count);
  data[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x] += 1.0f;
}

// 1b. The same barrier reused in a loop: the last arriver's reset is a reset
// every round (the ticket picks who does it), so this is the reset race, not a
// fixed-threshold barrier reused without a reset (no barrier-reuse here).
__global__ void last_arriver_resets_in_loop(float* data, unsigned* count, int n) {
  for (int r = 0; r < n; ++r) {
    data[blockIdx.x * blockDim.x + threadIdx.x] += float(r);
    __syncthreads();
    if (threadIdx.x == 0) {
      device_atomic c(*count);
      if (c.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1) {
        c.store(0u, cuda::memory_order_relaxed);  // expect: counter-reset
      } else {
        while (c.load(cuda::memory_order_acquire) < gridDim.x) {
        }
      }
    }
    __syncthreads();
  }
}

// 1c. Reused in a loop with no reset anywhere: a fixed-threshold barrier
// that passes at once from its second use.
__global__ void ticket_in_loop_never_reset(float* data, unsigned* count, int n) {
  for (int r = 0; r < n; ++r) {
    data[blockIdx.x * blockDim.x + threadIdx.x] += float(r);
    __syncthreads();
    if (threadIdx.x == 0) {
      device_atomic c(*count);
      if (c.fetch_add(1u, cuda::memory_order_acq_rel) != gridDim.x - 1) {  // expect: barrier-reuse
        while (c.load(cuda::memory_order_acquire) < gridDim.x) {
        }
      }
    }
    __syncthreads();
  }
}

// 2. Every block resets the counter after its own wait: a block that leaves
// early zeroes the count before a slower block has seen it complete.
__global__ void every_block_resets_after_wait(float* data, unsigned* count) {
  data[blockIdx.x * blockDim.x + threadIdx.x] = 2.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    device_atomic c(*count);
    c.fetch_add(1u, cuda::memory_order_acq_rel);
    while (c.load(cuda::memory_order_acquire) < gridDim.x) {
    }
    c.store(0u, cuda::memory_order_relaxed);  // expect: counter-reset
  }
  __syncthreads();
  data[((blockIdx.x + 3) % gridDim.x) * blockDim.x + threadIdx.x] *= 2.0f;
}

// 3. A generation scheme that resets the wrong word: the last arriver zeroes
// the generation instead of bumping it, and does not reset the count.
__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned atom_add_acq_rel(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
struct GridBarrier {
  unsigned count;
  unsigned generation;
};
template <bool kRight>
__device__ __forceinline__ void generation_barrier(GridBarrier* b) {
  unsigned* count = &b->count;
  unsigned* generation = &b->generation;
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned gen = ld_acquire(generation);
    if (atom_add_acq_rel(count, 1u) == gridDim.x - 1) {
      if (kRight) {
        asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(count) : "memory");
        asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(generation), "r"(gen + 1) : "memory");
      } else {
        asm volatile("st.release.gpu.global.u32 [%0], 0;" ::"l"(generation) : "memory");  // expect: counter-reset
      }
    } else {
      while (ld_acquire(generation) == gen) {
      }
    }
  }
  __syncthreads();
}
template <bool kRight>
__device__ __forceinline__ void rounds(float* data, GridBarrier* b, int n) {
  for (int r = 0; r < n; ++r) {
    data[blockIdx.x * blockDim.x + threadIdx.x] += float(r);
    generation_barrier<kRight>(b);
    data[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x] *= 0.5f;
    generation_barrier<kRight>(b);
  }
}
__global__ void generation_reset_instead_of_bump(float* data, GridBarrier* b, int n) { rounds<false>(data, b, n); }

// Fixed forms.
__global__ void generation_bumped_count_reset(float* data, GridBarrier* b, int n) { rounds<true>(data, b, n); }
__global__ void cooperative_grid_sync(float* data, int n) {
  cg::grid_group grid = cg::this_grid();
  for (int r = 0; r < n; ++r) {
    data[blockIdx.x * blockDim.x + threadIdx.x] += float(r);
    grid.sync();
    data[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x] *= 0.5f;
    grid.sync();
  }
}
__global__ void epoch_target(float* data, unsigned* count, int n) {
  for (int r = 1; r <= n; ++r) {
    data[blockIdx.x * blockDim.x + threadIdx.x] += float(r);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      device_atomic c(*count);
      c.fetch_add(1u, cuda::memory_order_acq_rel);
      while (c.load(cuda::memory_order_acquire) < unsigned(r) * gridDim.x) {
      }
    }
    __syncthreads();
    data[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x] *= 0.5f;
  }
}
