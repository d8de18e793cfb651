// Shape G of the NVSHMEM sample (docs/real-code.md, "NVSHMEM (issue 34)"): per-destination
// queue-pair records of this GPU (152 bytes each) in a table whose pointer is read from the
// kernel's __constant__ state, indexed by a number computed from the destination PE and the warp
// (`pe * perPe + warp % perPe`: several queue pairs per destination, one per group of warps). Each
// warp reserves a work-queue slot in its record (atomicAdd of `posted`: the kernel updates the
// records). A record holds a pointer to its completion queue's descriptor: a cached consumed index
// and the completion's status. Warp 0 stores the status, fences (.gpu) and raises the consumed
// index with atomicMax; the other warps' lane 0 wait for the index with volatile polls, fence
// (.gpu) and read the status. The records and their completion queues are this GPU's, and every
// thread that raises or reads the index runs on it: .gpu is the scope they need. The PTX does not
// show what the record's pointer points to: one field of a record of a table the kernel updates,
// at a PE-derived index, is not evidence that another GPU touches the queue, so the scope's
// partner link is not decided: strict tier at most. (NVSHMEM fences with .cta after its wait; a
// .cta fence here would also be too narrow for the other blocks' warps, a true finding.)
// The twin reaches the completion queue through an array of peer pointers at the same index
// (`peerCqs[pe * perPe + warp % perPe]`, stepping by the pointer's size, as `peers[next]`): another
// GPU raises the index and reads the status, and .gpu orders nothing for that GPU's threads:
// scope-too-narrow at both fences, in the default tier. The second twin reads the pointer from
// records of a table the kernel never writes (an address book of 16-byte entries, `book[i].cq`):
// records that no thread updates are how exchanged peer addresses are kept; default tier too.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct CompletionQueue {
  unsigned long long* produced;  // +0: the NIC's producer index (the twin: a peer's flag)
  unsigned long long* consumed;  // +8: the cached consumed index
  unsigned int depth;            // +16: configuration, written by the host before the launch
  unsigned int status;           // +20: the completion's status, stored before the index is raised
};

struct QueuePair {              // 152 bytes
  unsigned long long pad0[3];   // +0
  CompletionQueue* cq;          // +24
  unsigned long long posted;    // +32
  unsigned long long pad1[14];  // +40
};
static_assert(sizeof(QueuePair) == 152, "record size");

struct State {
  QueuePair* qps;             // perPe records per destination PE
  CompletionQueue** peerCqs;  // the twin: peers' queues, one pointer per (PE, warp group)
  const struct PeerEntry* book;  // the second twin: records of peer pointers, only read
  int perPe;
};

struct PeerEntry {  // 16 bytes: set up by the host before the launch
  CompletionQueue* cq;
  unsigned long long rkey;
};

__constant__ State g_state;

__device__ __forceinline__ unsigned long long ld_volatile(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void raise_completion(CompletionQueue* cq) {
  const unsigned long long seen = ld_volatile(cq->produced);
  cq->status = static_cast<unsigned int>(seen >> 48);
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // expect-strict: scope-too-narrow
  atomicMax(cq->consumed, seen);
}
__device__ __forceinline__ unsigned int wait_completion(CompletionQueue* cq, unsigned long long target) {
  const unsigned long long* const consumed = cq->consumed;
  while (ld_volatile(consumed) < target) {
  }
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // expect-strict: scope-too-narrow
  return cq->status;
}

// Safe: this GPU's completion queue, reached through its queue-pair record.
__global__ void quiet_queue_pairs(int pe, unsigned int* out) {
  if (threadIdx.x % 32 != 0) return;
  const int warp = threadIdx.x / 32;
  QueuePair* qp = &g_state.qps[pe * g_state.perPe + warp % g_state.perPe];
  const unsigned long long target = atomicAdd(&qp->posted, 1ull) + 1;  // reserve a work-queue slot
  if (warp == 0) raise_completion(qp->cq);
  else out[blockIdx.x * 32 + warp] = wait_completion(qp->cq, target);
}

// The twin's own copy (a fix of its scope edits this one alone).
__device__ __forceinline__ void raise_peer_completion(CompletionQueue* cq) {
  const unsigned long long seen = ld_volatile(cq->produced);
  cq->status = static_cast<unsigned int>(seen >> 48);
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // expect: scope-too-narrow
  atomicMax(cq->consumed, seen);
}
__device__ __forceinline__ unsigned int wait_peer_completion(CompletionQueue* cq, unsigned long long target) {
  const unsigned long long* const consumed = cq->consumed;
  while (ld_volatile(consumed) < target) {
  }
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // expect: scope-too-narrow
  return cq->status;
}

// Broken twin: the peer's completion queue, reached through an array of peer pointers.
__global__ void quiet_peer_queues(int pe, unsigned long long target, unsigned int* out) {
  if (threadIdx.x % 32 != 0) return;
  const int warp = threadIdx.x / 32;
  CompletionQueue* cq = g_state.peerCqs[pe * g_state.perPe + warp % g_state.perPe];
  if (warp == 0) raise_peer_completion(cq);
  else out[blockIdx.x * 32 + warp] = wait_peer_completion(cq, target);
}

// The second twin's own copy.
__device__ __forceinline__ void raise_book_completion(CompletionQueue* cq) {
  const unsigned long long seen = ld_volatile(cq->produced);
  cq->status = static_cast<unsigned int>(seen >> 48);
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // expect: scope-too-narrow
  atomicMax(cq->consumed, seen);
}
__device__ __forceinline__ unsigned int wait_book_completion(CompletionQueue* cq, unsigned long long target) {
  const unsigned long long* const consumed = cq->consumed;
  while (ld_volatile(consumed) < target) {
  }
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // expect: scope-too-narrow
  return cq->status;
}

// Broken twin: the peer's completion queue, reached through a record of an address book.
__global__ void quiet_book_queues(int pe, unsigned long long target, unsigned int* out) {
  if (threadIdx.x % 32 != 0) return;
  const int warp = threadIdx.x / 32;
  CompletionQueue* cq = g_state.book[pe * g_state.perPe + warp % g_state.perPe].cq;
  if (warp == 0) raise_book_completion(cq);
  else out[blockIdx.x * 32 + warp] = wait_book_completion(cq, target);
}
