// Issue 34, NCCL's AlltoAll_LL (docs/real-code.md, "NCCL: two presumptions about peers"): each
// rank keeps a queue record (a count of posted entries, a pointer to a ring of entries that its
// peers write, a pointer to a table of handles that the host writes); the ranks' records are
// reached through a table of pointers indexed by the rank. The blocks of a rank post into one
// peer's ring in turn: a block waits (with an acquire) until the peer's count reaches its turn,
// reads an entry of its own handle table, writes it into the peer's ring (the ring's pointer read
// from the peer's record) and raises the count with a relaxed .sys store, no release. What the
// next block reads after its wait is its own handle table: the buffer of another field of its
// record, which no write of the kernel reaches. A rank's copy of a buffer that a peer reaches
// through a field of the peer's record is reached through the same field of its own record: the
// handle table is not the ring. No default-tier finding (main took the two as one field of two
// ranks' copies by their shape, 8-byte entries at 8 * index, and reported release-missing).
// The twin reads its own ring after the wait: the same field as the peer's ring that the previous
// block wrote without release: release-missing.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Queue {
  unsigned long long posted;    // entries posted into this rank's ring (the posters' turn)
  unsigned long long* ring;     // this rank's ring of entries (written by its peers)
  unsigned long long* handles;  // this rank's table of handles (written by the host)
  unsigned long long mask;
};

// One copy of the signal per kernel: each carries its kernel's expectation.
__device__ __forceinline__ void st_relaxed_sys_handles(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect-strict: release-missing
}
__device__ __forceinline__ void st_relaxed_sys_ring(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect: release-missing
}
__device__ __forceinline__ unsigned long long ld_acquire_sys(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// Safe: after its wait a block reads its own handle table. queues[r]: rank r's record.
__global__ void post_in_turn_handles(Queue** queues, Queue* self, int peer) {
  Queue* q = queues[peer];
  if (threadIdx.x == 0) {
    while (ld_acquire_sys(&q->posted) < blockIdx.x) {
    }
    const unsigned long long h = self->handles[blockIdx.x];
    q->ring[blockIdx.x & q->mask] = h;
    st_relaxed_sys_handles(&q->posted, blockIdx.x + 1);
  }
}

// Broken twin: after its wait a block reads its own ring, the field the previous block wrote in
// the peer's record.
__global__ void post_in_turn_ring(Queue** queues, Queue* self, int peer) {
  Queue* q = queues[peer];
  if (threadIdx.x == 0) {
    while (ld_acquire_sys(&q->posted) < blockIdx.x) {
    }
    const unsigned long long h = self->ring[blockIdx.x];
    q->ring[blockIdx.x & q->mask] = h;
    st_relaxed_sys_ring(&q->posted, blockIdx.x + 1);
  }
}
