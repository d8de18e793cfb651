// Shape U-credit of NCCL's network kernels (docs/real-code.md, "NCCL: shapes C, D and U-credit
// decided"): a work queue's producers reserve slots with a counting atomic and need credit, the
// consumer index that the queue's consumer (the host, the NIC) advances. Each producer keeps a
// cached copy of that index in the queue's record, read and written with relaxed .gpu accesses:
// when the copy leaves too little room it polls the index itself (volatile) until there is room
// and stores what it saw back into the copy. Every value the copy holds is a value the index had,
// and the index only grows: a stale copy is an earlier value of the index, which only sends the
// producer to poll when it need not. The copy is a cache of a polled word, not data that a signal
// publishes: reading it after an unrelated relaxed wait (the completion count, raised by another
// block with a relaxed max) needs no acquire. No default-tier finding wanted.
// The twin stores into the same word a value it computed (its slot) before raising the
// completion count, and another block reads it after waiting for the count: data handed over
// with relaxed accesses and no release or acquire: release-missing and acquire-missing.
// The rule (ProtocolModel::isCopyOfPolledWord, model/PolledCopies.cpp): a word whose every store
// writes a value loaded from a polled word (here the value the consumer-index spin exits on) is a
// copy of that word; reading it is no guarded read and storing it publishes nothing. The strict
// acquire-missing that main reported at the consumer-index poll named the same read of the copy
// as the data it guards: no read after that poll reads a partner write now, so it is gone too.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Queue {
  unsigned long long reserved;                     // +0: slot reservations
  const volatile unsigned long long* consumed;     // +8: the consumer's index (host or NIC)
  unsigned long long cachedConsumed;               // +16: the producers' copy of it
  unsigned logDepth;                               // +24
  unsigned long long* slots;                       // +32
  unsigned long long done;                         // +40: completions, raised with a relaxed max
};

__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long ld_relaxed_twin(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ unsigned long long ld_cached(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void st_relaxed_sys(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void max_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void max_relaxed_twin(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect: release-missing
}

// Reserve a slot, with credit: the cached index first, the consumer's own when it is short.
__device__ __forceinline__ unsigned long long reserve(Queue* q) {
  const unsigned long long slot = atomicAdd(&q->reserved, 1ull);
  const unsigned long long size = 1ull << q->logDepth;
  unsigned long long consumed = ld_cached(&q->cachedConsumed);
  if (slot + 1 - consumed > size) {
    do consumed = *q->consumed;
    while (slot + 1 - consumed > size);
    st_relaxed(&q->cachedConsumed, consumed);
  }
  return slot;
}

// Safe: wait for the completion count, then post.
__global__ void post_and_wait(Queue* queues, const int* __restrict__ work, int n) {
  if (threadIdx.x != 0) return;
  Queue* q = queues + work[blockIdx.x];
  for (int i = 0; i < n; ++i) {
    while (ld_relaxed(&q->done) < i) {
    }
    const unsigned long long slot = reserve(q);
    st_relaxed_sys(&q->slots[slot & ((1ull << q->logDepth) - 1)], blockIdx.x);
    max_relaxed(&q->done, slot + 1);
  }
}

// Broken twin: the word carries a value computed by the block (its slot), handed to the blocks
// that wait for the count.
__global__ void post_and_wait_twin(Queue* queues, const int* __restrict__ work, unsigned long long* out, int n) {
  if (threadIdx.x != 0) return;
  Queue* q = queues + work[blockIdx.x];
  for (int i = 0; i < n; ++i) {
    const unsigned long long slot = atomicAdd(&q->reserved, 1ull);
    st_relaxed(&q->cachedConsumed, slot);
    max_relaxed_twin(&q->done, slot + 1);
    while (ld_relaxed_twin(&q->done) < slot) {}
    out[blockIdx.x] = ld_cached(&q->cachedConsumed);
  }
}
