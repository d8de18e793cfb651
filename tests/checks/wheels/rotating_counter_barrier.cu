// Session 27, MSCCL++'s shape RC (docs/real-code.md, "Shapes LP and RC"): a grid barrier over
// three counters and a turn word. Each use reads the turn t, arrives on counter c = (t + 1) % 3
// (fixed threshold: the block count), zeroes counter (c + 1) % 3 (the one the next use takes)
// before arriving, and after the wait stores c as the new turn. A loop reaches the barrier again,
// but the counter is chosen by a turn that the barrier itself advances: the next use takes
// another counter, and a counter is taken again only three uses later, after a use that zeroed
// it (model/RotatingCounters.h). Main reported barrier-reuse (`same-word`, `loop-trip`) at the
// arrival. Silent in both tiers.
//
// Twins that still fire barrier-reuse:
// - one counter reused in the loop, with no turn at all;
// - three counters taken in turn, nothing zeroed: each counter is taken again three uses later
//   with its old count;
// - three counters in turn, the zeroing always of counter 0: counters 1 and 2 are taken again
//   three uses later with their old counts.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct TurnBarrier {
  unsigned count[3];
  unsigned turn;
};
__device__ TurnBarrier rotating;
__device__ TurnBarrier unzeroed;
__device__ TurnBarrier fixedzero;
__device__ unsigned single_count;

__device__ __forceinline__ void arrive_release(unsigned* p) {
  unsigned old;
  asm volatile("atom.add.release.gpu.u32 %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");
  (void)old;
}
__device__ __forceinline__ void arrive_release_twin1(unsigned* p) {
  unsigned old;
  asm volatile("atom.add.release.gpu.u32 %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");  // expect: barrier-reuse
  (void)old;
}
__device__ __forceinline__ void arrive_release_twin2(unsigned* p) {
  unsigned old;
  asm volatile("atom.add.release.gpu.u32 %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");  // expect: barrier-reuse
  (void)old;
}
__device__ __forceinline__ void arrive_release_twin3(unsigned* p) {
  unsigned old;
  asm volatile("atom.add.release.gpu.u32 %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");  // expect: barrier-reuse
  (void)old;
}
__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Thread 0 of every block: the turn's counter, the next one zeroed ahead of its use.
__device__ __forceinline__ void sync_rotating(TurnBarrier* b, unsigned blocks) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned c = (b->turn + 1) % 3;
    b->count[(c + 1) % 3] = 0;
    arrive_release(&b->count[c]);
    while (load_acquire(&b->count[c]) != blocks) {}
    b->turn = c;
  }
  __syncthreads();
}

__global__ void rotating_counter_barrier(float* data, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    data[i] += data[(i + 1) % (gridDim.x * blockDim.x)];
    sync_rotating(&rotating, gridDim.x);
  }
}

// Broken: one counter, the same word on every trip.
__global__ void single_counter_barrier(float* data, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    data[i] += data[(i + 1) % (gridDim.x * blockDim.x)];
    __syncthreads();
    if (threadIdx.x == 0) {
      arrive_release_twin1(&single_count);
      while (load_acquire(&single_count) != gridDim.x) {}
    }
    __syncthreads();
  }
}

// Broken: three counters in turn, none zeroed.
__global__ void three_counters_no_reset(float* data, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    data[i] += data[(i + 1) % (gridDim.x * blockDim.x)];
    __syncthreads();
    if (threadIdx.x == 0) {
      const unsigned c = (unzeroed.turn + 1) % 3;
      arrive_release_twin2(&unzeroed.count[c]);
      while (load_acquire(&unzeroed.count[c]) != gridDim.x) {}
      unzeroed.turn = c;
    }
    __syncthreads();
  }
}

// Broken: three counters in turn, only counter 0 is ever zeroed.
__global__ void three_counters_zero_only_first(float* data, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    data[i] += data[(i + 1) % (gridDim.x * blockDim.x)];
    __syncthreads();
    if (threadIdx.x == 0) {
      const unsigned c = (fixedzero.turn + 1) % 3;
      fixedzero.count[0] = 0;
      arrive_release_twin3(&fixedzero.count[c]);
      while (load_acquire(&fixedzero.count[c]) != gridDim.x) {}
      fixedzero.turn = c;
    }
    __syncthreads();
  }
}
