// Issue 34, NCCL's AlltoAll_LL (docs/real-code.md, "NCCL: two presumptions about peers"): each
// rank keeps a queue record (a count of posted entries that the posters raise, and the ring's
// mask, set up by the host before the launch); the ranks' records are reached through a table of
// pointers indexed by the rank. The blocks of a rank post into one peer's queue in turn: a block
// waits (a relaxed poll, no acquire) until the peer's count reaches its turn, reads the queue's
// mask, and raises the count. Each block also stamps a per-block statistics slot before raising
// the count (a pointer parameter, which the analysis cannot tell apart from the record). The mask
// is a field of the polled record that every write of the kernel through that record misses: no
// copy of the kernel writes it, and the stamp is no evidence that a peer did. Silent in the
// default tier; in the strict tier a note whose data link is the stamp's undecided one
// (`distinct-pointers`). Main presumed the peer wrote the mask before raising the count
// (`peer-memory`) and warned.
// The twin reads a field of the record that the previous poster wrote before raising the count
// (the last entry posted): the data the count publishes, read without acquire, written without
// release: acquire-missing and release-missing.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Queue {
  unsigned long long posted;  // entries posted (the posters' turn)
  unsigned long long last;    // the last entry posted
  unsigned mask;              // written by the host
};

// One copy of the signal and of the poll per kernel: each carries its kernel's expectations (the
// stamp and the output are written before the next block's turn without release: strict tier in
// the safe kernel, whose reads the analysis cannot relate to them).
__device__ __forceinline__ void st_relaxed_sys_mask(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect-strict: release-missing
}
__device__ __forceinline__ void st_relaxed_sys_last(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect: release-missing
}
__device__ __forceinline__ unsigned long long ld_relaxed_sys_mask(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing
  return v;
}
__device__ __forceinline__ unsigned long long ld_relaxed_sys_last(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}

// Safe: after its wait a block reads the queue's mask. queues[r]: rank r's record.
__global__ void post_in_turn_mask(Queue** queues, int peer, unsigned long long* stats, unsigned* out) {
  Queue* q = queues[peer];
  if (threadIdx.x == 0) {
    while (ld_relaxed_sys_mask(&q->posted) < blockIdx.x) {
    }
    out[blockIdx.x] = q->mask;
    stats[blockIdx.x] = blockIdx.x;
    st_relaxed_sys_mask(&q->posted, blockIdx.x + 1);
  }
}

// Broken twin: after its wait a block reads the entry the previous poster wrote.
__global__ void post_in_turn_last(Queue** queues, int peer, unsigned long long* stats, unsigned long long* out) {
  Queue* q = queues[peer];
  if (threadIdx.x == 0) {
    while (ld_relaxed_sys_last(&q->posted) < blockIdx.x) {
    }
    out[blockIdx.x] = q->last;
    q->last = blockIdx.x;
    stats[blockIdx.x] = blockIdx.x;
    st_relaxed_sys_last(&q->posted, blockIdx.x + 1);
  }
}
