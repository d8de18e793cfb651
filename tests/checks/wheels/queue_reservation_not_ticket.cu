// Shape T of the NCCL reads (docs/real-code.md, "NCCL: AllGather_RailRing's findings"): a
// block reserves slots of a work queue with a relaxed `atomicAdd` on the queue's head and
// compares the value it got back for equality twice: with the all-ones "no slot" value, and
// with the posted counter that a claim-in-order `atomicCAS` returns (the block waits for its
// turn to post; a second kernel tries its turn once, with no sentinel). Neither equality counts arrived blocks: the all-ones value is a sentinel no
// count of blocks reaches, and the posted counter is a value read at run time (the turn's
// observation is the CAS, not the reservation). The reservation is no ticket: the block's own
// state word, written before the reservation and read after it, is no data that another block
// published, and nothing is reported.
// The twin is the last-block idiom on the same queue: the reservation compared with the count
// of slots that every block but this one has reserved, `2 * (gridDim.x - 1)`, a launch count.
// The last block reads the others' partial sums with no acquire: acquire-missing, default tier
// (and the blocks' own relaxed reservation publishes their partial sums: release-missing).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Queue {
  unsigned long long head;    // slots reserved
  unsigned long long posted;  // slots posted, claimed in order
  unsigned long long* ring;   // the entries
  unsigned int mask;          // ring size - 1
};

__device__ __forceinline__ unsigned long long reserve(unsigned long long* head) {
  unsigned long long slot;
  asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], 2;" : "=l"(slot) : "l"(head) : "memory");
  return slot;
}
__device__ __forceinline__ unsigned long long reserve_twin(unsigned long long* head) {
  unsigned long long slot;
  asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], 2;" : "=l"(slot) : "l"(head) : "memory");  // expect: acquire-missing, release-missing
  return slot;
}

// Safe: the reservation's value indexes the ring and waits for the block's turn; the state word
// read after it is the block's own.
__global__ void post_to_queue(Queue* q, unsigned long long* state, unsigned long long* out) {
  if (threadIdx.x != 0) return;
  state[blockIdx.x] = state[blockIdx.x] + 1;
  const unsigned long long slot = reserve(&q->head);
  if (slot == ~0ull) return;  // the queue is closed
  q->ring[slot & q->mask] = blockIdx.x;
  q->ring[(slot + 1) & q->mask] = state[blockIdx.x];
  __threadfence();
  // The turn wait is a spin on the CAS; its partner (another block's CAS) is not a write this
  // analysis pairs with the poll: strict tier only.
  while (atomicCAS(&q->posted, slot, slot + 2) != slot) {  // expect-strict: acquire-missing
  }
  out[blockIdx.x] = state[blockIdx.x];
}

// Safe: one try at the turn, no sentinel; the equality compares the reservation with the posted
// counter the CAS read (a run-time value), and the block falls back to an overflow word when
// its turn has not come.
__global__ void try_post_to_queue(Queue* q, unsigned long long* state, unsigned long long* overflow,
                                  unsigned long long* out) {
  if (threadIdx.x != 0) return;
  state[blockIdx.x] = state[blockIdx.x] + 1;
  const unsigned long long slot = reserve(&q->head);
  q->ring[slot & q->mask] = state[blockIdx.x];
  __threadfence();
  if (atomicCAS(&q->posted, slot, slot + 1) == slot)
    out[blockIdx.x] = state[blockIdx.x];
  else
    atomicAdd(overflow, 1ull);
}

// Broken twin: the reservation compared with a launch count is the last block's ticket.
__global__ void last_poster_sums(Queue* q, unsigned long long* partial, unsigned long long* out) {
  if (threadIdx.x != 0) return;
  partial[blockIdx.x] = blockIdx.x + 1;
  const unsigned long long slot = reserve_twin(&q->head);
  if (slot == 2ull * (gridDim.x - 1)) {
    unsigned long long sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += partial[b];
    *out = sum;
  }
}
