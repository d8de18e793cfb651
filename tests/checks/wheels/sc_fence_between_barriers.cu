// Session 26, cuDSS's shape H (docs/real-code.md): the block's threads write, a
// `__syncthreads()` gathers them, thread 0 alone executes fence.sc, a second
// `__syncthreads()` hands that on, and every thread then signals a dependent block with a
// relaxed add and no fence of its own; the dependent's thread 0 polls, executes fence.sc and
// a `__syncthreads()` lets the block read. By the PTX memory model the two fence.sc are
// ordered in Fence-SC order, and the waiter's cannot come first (the poll would then precede
// the signal it reads in causality order), so thread 0's fence synchronizes with the waiter's
// and the writes before the first barrier are visible to the reads: no finding
// (model/ScFencedRelease.h). Main reported release-missing at the signal.
// Twins that must fire: no second barrier (thread 0's fence is concurrent with the other
// threads' signals: finding 7's form, true), and a waiter that fences with fence.acq_rel
// (no release pattern on the signalling thread, and an acq_rel fence takes no part in the
// Fence-SC order); and the last block of a count signalling for all (the other blocks' writes
// come through the count, which nothing acquires). The span does not count when thread 0 reads
// what another block may have written (the count) after its last fence.sc: the lead's
// narrowing of session 26, which puts cuDSS's fwd_trsv findings back (the group twins below;
// they fire with h26's binary too, for another reason: their count is on a buffer of its own, so
// h26's span was not clean). sc_fence_last_of_group_one_buffer (session 27) keeps the count in the
// flags' buffer, as cuDSS does: h26's rule releases it (silent), the narrowing reports it.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ void fence_sc() { asm volatile("fence.sc.gpu;" ::: "memory"); }
__device__ __forceinline__ void fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
__device__ __forceinline__ int poll_count(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void count_one(int* p) {
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], 1;" ::"l"(p) : "memory");
}
// The twins' own copies (one line, one kernel's findings).
__device__ __forceinline__ void count_one_unbarriered(int* p) {
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], 1;" ::"l"(p) : "memory");  // expect: release-missing
}
__device__ __forceinline__ int poll_count_weak(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void count_one_weak(int* p) {
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], 1;" ::"l"(p) : "memory");  // expect: release-missing
}

// Block b waits for its dependencies, reads its column of x, adds into its dependents'
// columns, and counts one arrival on each dependent (one thread per dependent).
__global__ void sc_fence_between_barriers(float* x, int* ready, const int* deps, const int* dependents,
                                          int ndependents) {
  const int b = blockIdx.x;
  if (threadIdx.x == 0) {
    while (poll_count(&ready[b]) < deps[b]) {}
    fence_sc();
  }
  __syncthreads();
  const float v = x[b * 256 + threadIdx.x];
  for (int k = 0; k < ndependents; ++k) x[dependents[b * 8 + k] * 256 + threadIdx.x] += v;
  __syncthreads();
  if (threadIdx.x == 0) fence_sc();
  __syncthreads();
  if (threadIdx.x < ndependents) count_one(&ready[dependents[b * 8 + threadIdx.x]]);
}

// Broken: no barrier between thread 0's fence and the other threads' counts.
__global__ void sc_fence_no_second_barrier(float* x, int* ready, const int* deps, const int* dependents,
                                           int ndependents) {
  const int b = blockIdx.x;
  if (threadIdx.x == 0) {
    while (poll_count(&ready[b]) < deps[b]) {}
    fence_sc();
  }
  __syncthreads();
  const float v = x[b * 256 + threadIdx.x];
  for (int k = 0; k < ndependents; ++k) x[dependents[b * 8 + k] * 256 + threadIdx.x] += v;
  __syncthreads();
  if (threadIdx.x == 0) fence_sc();
  if (threadIdx.x < ndependents) count_one_unbarriered(&ready[dependents[b * 8 + threadIdx.x]]);
}

// Broken: the waiter's fence is fence.acq_rel, which pairs with no release of the signalling
// threads and is not ordered with thread 0's fence.sc.
__global__ void sc_fence_weak_waiter(float* x, int* ready, const int* deps, const int* dependents,
                                     int ndependents) {
  const int b = blockIdx.x;
  if (threadIdx.x == 0) {
    while (poll_count_weak(&ready[b]) < deps[b]) {}
    fence_acq_rel();
  }
  __syncthreads();
  const float v = x[b * 256 + threadIdx.x];
  for (int k = 0; k < ndependents; ++k) x[dependents[b * 8 + k] * 256 + threadIdx.x] += v;
  __syncthreads();
  if (threadIdx.x == 0) fence_sc();
  __syncthreads();
  if (threadIdx.x < ndependents) count_one_weak(&ready[dependents[b * 8 + threadIdx.x]]);
}

__device__ __forceinline__ void count_one_last(int* p) {
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], 1;" ::"l"(p) : "memory");  // expect: release-missing
}

// Broken: the last block of the grid signals for every block (cuDSS's form with a count of
// the blocks). Thread 0 fences before its count, so its block's own writes are released as
// above, but the other blocks' writes reach the last block only through the count's returned
// value, and nothing acquires them before the signals: the last arriver passes on what it
// observed without a fence between the count and the signal (issue 30, shape 1).
__global__ void sc_fence_last_block(float* x, int* ready, unsigned* arrived, const int* deps,
                                    const int* dependents, int ndependents) {
  __shared__ unsigned ticket;
  const int b = blockIdx.x;
  if (threadIdx.x == 0) {
    while (poll_count(&ready[b]) < deps[b]) {}
    fence_sc();
  }
  __syncthreads();
  const float v = x[b * 256 + threadIdx.x];
  x[dependents[b] * 256 + threadIdx.x] += v;
  __syncthreads();
  if (threadIdx.x == 0) {
    fence_sc();
    ticket = atomicAdd(arrived, 1u);  // expect-strict: acquire-missing
  }
  __syncthreads();
  if (ticket == gridDim.x - 1 && threadIdx.x < ndependents)
    count_one_last(&ready[dependents[gridDim.x + threadIdx.x]]);
}

__device__ __forceinline__ void count_one_group_last(int* p) {
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], 1;" ::"l"(p) : "memory");  // expect: release-missing
}

// Broken: the blocks of a group add into their dependents' columns, and the last block of the
// group signals for all of them, the group's size read from memory (cuDSS's fwd_trsv form: the
// model does not take such a count for a last-arrival ticket). Thread 0's fence.sc comes before
// its count, and the count's returned value is what tells the block that the others' writes
// are done: nothing after the fence acquires them, so the fence releases only the block's own
// writes (model/ScFenceSpans: a fence.sc after the last read that may observe another block).
__global__ void sc_fence_last_of_group(float* x, int* ready, unsigned* arrived, const int* deps,
                                       const int* dependents, const int* group_size, int ndependents) {
  __shared__ unsigned ticket;
  const int b = blockIdx.x;
  const int g = b / 4;
  if (threadIdx.x == 0) {
    while (poll_count(&ready[b]) < deps[b]) {}
    fence_sc();
  }
  __syncthreads();
  const float v = x[b * 256 + threadIdx.x];
  for (int k = 0; k < ndependents; ++k) x[dependents[b * 8 + k] * 256 + threadIdx.x] += v;
  __syncthreads();
  if (threadIdx.x == 0) {
    fence_sc();
    ticket = atomicAdd(&arrived[g], 1u);
  }
  __syncthreads();
  if (ticket == unsigned(group_size[g] - 1) && threadIdx.x < ndependents)
    count_one_group_last(&ready[dependents[b * 8 + threadIdx.x]]);
}

__device__ __forceinline__ void count_one_group_fenced(int* p) {
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], 1;" ::"l"(p) : "memory");
}

// Fixed: the same group, with thread 0's fence.sc after its count (what the count observed is
// then released with the block's own writes).
__global__ void sc_fence_after_group_count(float* x, int* ready, unsigned* arrived, const int* deps,
                                           const int* dependents, const int* group_size, int ndependents) {
  __shared__ unsigned ticket;
  const int b = blockIdx.x;
  const int g = b / 4;
  if (threadIdx.x == 0) {
    while (poll_count(&ready[b]) < deps[b]) {}
    fence_sc();
  }
  __syncthreads();
  const float v = x[b * 256 + threadIdx.x];
  for (int k = 0; k < ndependents; ++k) x[dependents[b * 8 + k] * 256 + threadIdx.x] += v;
  __syncthreads();
  if (threadIdx.x == 0) {
    fence_sc();
    ticket = atomicAdd(&arrived[g], 1u);
    fence_sc();
  }
  __syncthreads();
  if (ticket == unsigned(group_size[g] - 1) && threadIdx.x < ndependents)
    count_one_group_fenced(&ready[dependents[b * 8 + threadIdx.x]]);
}

__device__ __forceinline__ void count_one_group_one_buffer(int* p) {
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], 1;" ::"l"(p) : "memory");  // expect: release-missing
}

// Broken, and the twin that separates the lead's narrowing from h26's first rule (session 27):
// the group's count kept in the flags' own buffer, after the flags (cuDSS's fwd_trsv keeps its
// counts and flags in one array). Taken after thread 0's fence as in sc_fence_last_of_group.
// There the count, on a buffer of its own, is a write that a later block's own count reads after
// its wait, so h26's span was not clean and h26's binary reported it too; here the count may raise
// a polled word, so the span took it for synchronization (a signal of the span) and h26's binary
// released: silent. The narrowing (the fence must follow thread 0's last read that may observe
// another block) reports it.
__global__ void sc_fence_last_of_group_one_buffer(float* x, int* ready, const int* deps, const int* dependents,
                                                  const int* group_size, int counts_at, int ndependents) {
  __shared__ unsigned ticket;
  const int b = blockIdx.x;
  const int g = b / 4;
  if (threadIdx.x == 0) {
    while (poll_count(&ready[b]) < deps[b]) {}
    fence_sc();
  }
  __syncthreads();
  const float v = x[b * 256 + threadIdx.x];
  for (int k = 0; k < ndependents; ++k) x[dependents[b * 8 + k] * 256 + threadIdx.x] += v;
  __syncthreads();
  if (threadIdx.x == 0) {
    fence_sc();
    ticket = atomicAdd(reinterpret_cast<unsigned*>(&ready[counts_at + g]), 1u);
  }
  __syncthreads();
  if (ticket == unsigned(group_size[g] - 1) && threadIdx.x < ndependents)
    count_one_group_one_buffer(&ready[dependents[b * 8 + threadIdx.x]]);
}
