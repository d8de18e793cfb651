// The cache rule (docs/real-code.md, "NCCL: U-credit by the cache rule") in another shape than
// cached_credit_count.cu: the consumers of a ring take entries in turn (a relaxed turn counter,
// polled and advanced by each block) and share a cached copy of the producer's head index. A block
// reads the copy; when it shows too few entries, a function that is not inlined polls the head
// itself (an acquire load: the entries it then reads are ordered) and returns the value it exits
// on, and the block stores that value back into the copy (an inline-asm relaxed store) before it
// passes the turn. The copy only ever holds values the head had, and the head only grows: a stale
// copy is an earlier head, which sends a block to poll when it need not. Reading it after the
// relaxed turn wait needs no acquire, and storing it before the relaxed turn add needs no release:
// no default-tier finding.
// The twin stores the room it computed (head minus its need) into the same word: a value the
// block made, handed to the next turn holder with relaxed accesses only: acquire-missing at the
// turn's poll. (release-missing reports no turn add here, in the twin either, before this rule as
// after it; cached_credit_count.cu tests the release side of the rule.)
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Ring {
  unsigned long long turn;                         // +0: whose turn, advanced with a relaxed add
  const unsigned long long* head;                  // +8: the producer's count (the host)
  unsigned long long cachedHead;                   // +16: the consumers' copy of *head
  unsigned long long taken;                        // +24: entries taken
  const unsigned long long* entries;               // +32
  unsigned long long sum;                          // +40: what the blocks took, added up
};

__device__ __forceinline__ unsigned long long ld_turn(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long ld_turn_twin(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ void pass_turn(unsigned long long* p) {
  asm volatile("red.relaxed.gpu.global.add.u64 [%0], 1;" ::"l"(p) : "memory");
}
__device__ __forceinline__ void pass_turn_twin(unsigned long long* p) {
  asm volatile("red.relaxed.gpu.global.add.u64 [%0], 1;" ::"l"(p) : "memory");
}
__device__ __forceinline__ unsigned long long ld_copy(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_copy(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// Not inlined by nvcc: the value the spin exits on comes back as the return value.
__device__ __noinline__ unsigned long long wait_for_entries(const unsigned long long* head, unsigned long long need) {
  unsigned long long h;
  do asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(h) : "l"(head) : "memory");
  while (h < need);
  return h;
}

// Safe: the copy is stored only with what the head poll returned.
__global__ void take_in_turn(Ring* ring) {
  if (threadIdx.x != 0) return;
  while (ld_turn(&ring->turn) != blockIdx.x) {
  }
  const unsigned long long need = atomicAdd(&ring->taken, 1ull) + 1;
  unsigned long long head = ld_copy(&ring->cachedHead);
  if (head < need) {
    head = wait_for_entries(ring->head, need);
    st_copy(&ring->cachedHead, head);
  }
  atomicAdd(&ring->sum, ring->entries[need - 1]);
  pass_turn(&ring->turn);
}

// Broken twin: the word holds a value the block computed (the room left after its entry).
__global__ void take_in_turn_twin(Ring* ring) {
  if (threadIdx.x != 0) return;
  while (ld_turn_twin(&ring->turn) != blockIdx.x) {
  }
  const unsigned long long need = atomicAdd(&ring->taken, 1ull) + 1;
  unsigned long long room = ld_copy(&ring->cachedHead);
  if (room == 0) {
    room = wait_for_entries(ring->head, need) - need;
    st_copy(&ring->cachedHead, room);
  }
  atomicAdd(&ring->sum, ring->entries[need - 1] + room);
  pass_turn_twin(&ring->turn);
}
