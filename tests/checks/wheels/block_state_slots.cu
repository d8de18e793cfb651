// NCCL's block-private state word (docs/real-code.md, "NCCL: the block-private state word"): a
// state buffer per context, `state + words * (blockIdx.x % contexts)`, and in it each block's own
// slots at a stride chosen per block (2, or max(peers, 2), by a mode byte of the block's context in
// a by-value argument). Thread 0 writes the block's state word before the context's credit count
// is advanced (a relaxed atom.max, no fence); the block waits on that count with relaxed loads
// (no acquire) and its threads read the block's slots again, at `slot + peer` (a 32-bit index
// widened after the add).
//  - Safe: the block reads its own slots. Another block's slots are at its own stride and its own
//    context's base, apart from this block's unless the launch's values (words, contexts, the
//    strides, the first slot) make them meet: the data link is `block-slices`, and acquire-missing
//    and release-missing belong to the strict tier. A second per-block word at another stride
//    (`tail * blockIdx.x`, advanced by thread 32 before the count) is the same: another block's
//    word and this block's state slots meet only if the two strides and the offsets make them.
//  - Broken twin: after the wait each block reads the slots of its partner block (blockIdx.x ^ 1),
//    written by that block before it advanced the count: the data crosses blocks, acquire-missing
//    and release-missing in the default tier.
// The rule: model/BlockSlices.cpp (MemoryAnalysis::blockSlices: a product of the block index with
// any factor is a stride; a context's shared value beside the block index; strides of two factors).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct StateArgs {
  unsigned long long* state;
  unsigned long long* credits;
  int words;          // the state words of one context
  unsigned contexts;  // blocks share a context by blockIdx.x % contexts
  int peers;
  int first;          // the first slot
  int tail;           // the stride of the second per-block word
  int tailFirst;
  unsigned char mode[8];
};

__device__ __forceinline__ unsigned long long ld_relaxed_own(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing
  return v;
}
__device__ __forceinline__ void advance_own(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect-strict: release-missing
}
__device__ __forceinline__ unsigned long long ld_relaxed_partner(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ void advance_partner(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect: release-missing
}

// Safe: each block reads back its own slots after the credit wait.
__global__ void __launch_bounds__(128) own_state_slots(StateArgs a, const unsigned* __restrict__ in, unsigned* out) {
  const unsigned context = blockIdx.x % a.contexts;
  unsigned long long* state = a.state + a.words * (int)context;
  const int stride = a.mode[context & 7] == 5 ? 2 : max(a.peers, 2);
  const unsigned slot = stride * blockIdx.x + a.first;
  unsigned long long* credit = a.credits + context;
  unsigned long long* tail = state + (a.tail * blockIdx.x + a.tailFirst);
  if (threadIdx.x == 32) *tail = *tail + in[blockIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    state[slot] = 0x8000000000000000ull | in[blockIdx.x];
    advance_own(credit, in[blockIdx.x]);
    while (ld_relaxed_own(credit) < (unsigned long long)a.peers) {
    }
  }
  __syncthreads();
  if (threadIdx.x < (unsigned)a.peers) {
    const unsigned index = slot + threadIdx.x;
    out[blockIdx.x * 128 + threadIdx.x] = *reinterpret_cast<const unsigned*>(state + index);
  }
}

// Broken twin: each block reads its partner block's slots (blockIdx.x ^ 1) after the wait.
__global__ void __launch_bounds__(128) partner_state_slots(StateArgs a, const unsigned* __restrict__ in, unsigned* out) {
  const unsigned context = blockIdx.x % a.contexts;
  unsigned long long* state = a.state + a.words * (int)context;
  const int stride = a.mode[context & 7] == 5 ? 2 : max(a.peers, 2);
  const unsigned slot = stride * blockIdx.x + a.first;
  const unsigned partner = stride * (blockIdx.x ^ 1) + a.first;
  unsigned long long* credit = a.credits + context;
  if (threadIdx.x == 0) {
    state[slot] = 0x8000000000000000ull | in[blockIdx.x];
    advance_partner(credit, in[blockIdx.x]);
    while (ld_relaxed_partner(credit) < (unsigned long long)a.peers) {
    }
  }
  __syncthreads();
  if (threadIdx.x < (unsigned)a.peers) {
    const unsigned index = partner + threadIdx.x;
    out[blockIdx.x * 128 + threadIdx.x] = *reinterpret_cast<const unsigned*>(state + index);
  }
}
