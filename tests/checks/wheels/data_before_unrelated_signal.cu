// Issue 34, NCCL's AlltoAll_LL (docs/real-code.md, "A partner write before no signal the wait
// observes"): after a start flag, each block reads its epoch word (in a window whose address the
// kernel joins from two halves, which the analysis cannot name), and its thread 0 increments the
// word once the block is past a barrier; at the end thread 0 stores a done word through another
// joined pointer. Block 0 raises the start flag with nothing written before it: no data is handed
// over, and each block's epoch word is its own. The done store may be any word, the flag included,
// so the partner model counts the increment among the flag's partner writes; main reported
// acquire-missing at the start wait in the default tier with the increment as the data (the
// signal shown, the start flag, follows no such write). The increment precedes only stores the
// analysis cannot relate to the flag: that it reaches the waiter rests on one of them being the
// flag, so the data link is undecided (`unrelated-signal`) and the finding strict.
// Broken twin: block 0 writes a shared epoch word and then raises the flag, and the waiters read
// it with no acquire (and no release on block 0's side): both in the default tier, the write before
// the flag's own signal.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
// RUN: not %fenceline check --strict --arch sm_90a --format json %s | FileCheck %s --check-prefix=JSON
// JSON: "how": "unrelated-signal"

struct Window {
  unsigned* start;          // the start flag
  unsigned epochLo, epochHi;  // the epoch words' address, in two halves
  unsigned doneLo, doneHi;    // the done words' address, in two halves
};

__device__ __forceinline__ unsigned* joined(unsigned lo, unsigned hi) {
  unsigned* p;
  asm("mov.b64 %0, {%1, %2};" : "=l"(p) : "r"(lo), "r"(hi));
  return p;
}
__device__ __forceinline__ void raise_start(unsigned* p) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], 1;" ::"l"(p) : "memory");
}
// The done store's reader is unknown (a pointer the analysis cannot name): strict.
__device__ __forceinline__ void store_done(unsigned* p) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], 1;" ::"l"(p) : "memory");  // expect-strict: release-missing
}
__device__ __forceinline__ unsigned wait_start(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing
  return v;
}
// The twin's own copies (one line, one kernel's findings).
__device__ __forceinline__ void raise_start_twin(unsigned* p) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], 1;" ::"l"(p) : "memory");  // expect: release-missing
}
__device__ __forceinline__ void store_done_twin(unsigned* p) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], 1;" ::"l"(p) : "memory");  // expect-strict: release-missing
}
__device__ __forceinline__ unsigned wait_start_twin(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}

// Safe: each block's epoch word is its own, incremented after the wait, before the done store only.
__global__ void epoch_after_start(Window w) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) raise_start(w.start);
  } else {
    while (wait_start(w.start) == 0) {}
  }
  unsigned* epoch = joined(w.epochLo, w.epochHi) + blockIdx.x;
  const unsigned e = *epoch;
  __syncthreads();
  if (threadIdx.x == 0) *epoch = e + 1;
  __syncthreads();
  if (threadIdx.x == 0) store_done(joined(w.doneLo, w.doneHi) + blockIdx.x);
}

// Broken twin: block 0 publishes a shared epoch word with the start flag, unordered.
__global__ void epoch_with_start(Window w, unsigned value) {
  unsigned* epoch = joined(w.epochLo, w.epochHi);
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      *epoch = value;
      raise_start_twin(w.start);
    }
  } else {
    while (wait_start_twin(w.start) == 0) {}
  }
  const unsigned e = *epoch;
  __syncthreads();
  if (threadIdx.x == 0) store_done_twin(joined(w.doneLo, w.doneHi) + blockIdx.x * 2 + (e & 1));
}
