// Shape C of the NVSHMEM sample (docs/real-code.md, "NVSHMEM (issue 34)"): a queue's lock (a
// relaxed CAS spin, then fence.acq_rel.cta; unlock: fence.acq_rel.cta, volatile store of 0)
// guards a posted count that each holder reads with a volatile load and raises with atomicMax.
// The queue is chosen by a number read from memory, so two blocks may share it: the lock's .cta
// fences order nothing between holders in different CTAs. But what one holder hands the next is the
// count alone, written by an atomic (.gpu) and read by a volatile load (.sys), one 8-byte word:
// morally strong accesses, no data race; the next holder reads one of the count's values, and an
// older one is a lower bound the atomicMax corrects. Nothing weak is handed: no default-tier
// finding (the atomic was taken for the data that the volatile read reads). Strict tier keeps
// both fences, each with its `strong-pair` data link.
// The twin also hands a weak field (`note`, a plain store read by the next holder with a plain
// load) under the same lock: a holder in another CTA may read it stale; scope-too-narrow at both
// .cta fences stays in the default tier.
// A signal that publishes only a counter (atomicMax, then a volatile flag store with no fence) and
// a reader that reads the counter with a volatile load after its wait is the same pairing on the
// release-missing / acquire-missing side: strict only. Its twin publishes a weak word as well (and
// its atomicMax of a parameter's value, a flag for a later kernel by its form, is a strict-tier
// signal of that word).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
// RUN: not %fenceline check --strict --arch sm_90a --format json %s | FileCheck %s
// CHECK: "how": "strong-pair"

struct Queue {
  int lock;                      // +0
  unsigned int pad;              // +4
  unsigned long long posted;     // +8: raised under the lock
  unsigned long long note;       // +16: the twin's weak field
};

__device__ __forceinline__ unsigned long long ld_volatile(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_volatile(unsigned int* p, unsigned int v) {
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned int ld_volatile32(const unsigned int* p) {
  unsigned int v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void lock(int* l) {
  int old;
  do {
    asm volatile("atom.relaxed.gpu.global.cas.b32 %0, [%1], 0, 1;" : "=r"(old) : "l"(l) : "memory");
  } while (old == 1);
  asm volatile("fence.acq_rel.cta;" ::: "memory");  // expect-strict: scope-too-narrow
}
__device__ __forceinline__ void unlock(int* l) {
  asm volatile("fence.acq_rel.cta;" ::: "memory");  // expect-strict: scope-too-narrow
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(l), "r"(0) : "memory");
}

// Safe: the holders hand each other the posted count only.
__global__ void post_count(Queue* queues, const int* which, unsigned long long ready) {
  Queue* q = &queues[which[blockIdx.x]];
  if (threadIdx.x != 0) return;
  lock(&q->lock);
  if (ld_volatile(&q->posted) < ready) atomicMax(&q->posted, ready);
  unlock(&q->lock);
}

// The twin's own copies (a fix of the scope edits these helpers alone).
__device__ __forceinline__ void lock_note(int* l) {
  int old;
  do {
    asm volatile("atom.relaxed.gpu.global.cas.b32 %0, [%1], 0, 1;" : "=r"(old) : "l"(l) : "memory");
  } while (old == 1);
  asm volatile("fence.acq_rel.cta;" ::: "memory");  // expect: scope-too-narrow
}
__device__ __forceinline__ void unlock_note(int* l) {
  asm volatile("fence.acq_rel.cta;" ::: "memory");  // expect: scope-too-narrow
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(l), "r"(0) : "memory");
}

// Broken twin: the holder also reads the note the previous holder stored (a weak field).
__global__ void post_count_and_note(Queue* queues, const int* which, unsigned long long ready,
                                    unsigned long long* out) {
  Queue* q = &queues[which[blockIdx.x]];
  if (threadIdx.x != 0) return;
  lock_note(&q->lock);
  out[blockIdx.x] = q->note;
  q->note = ready;
  if (ld_volatile(&q->posted) < ready) atomicMax(&q->posted, ready);
  unlock_note(&q->lock);
}

// Safe (default tier): block 0 raises the progress count, then the flag; the other blocks wait
// for the flag and read the count with a volatile load. The count is strong on both sides.
__global__ void publish_count(unsigned long long* count, unsigned int* flag, unsigned long long value,
                              unsigned long long* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    atomicMax(count, value);
    st_volatile(flag, 1);  // expect-strict: release-missing
  } else {
    while (ld_volatile32(flag) == 0) {  // expect-strict: acquire-missing
    }
    out[blockIdx.x] = ld_volatile(count);
  }
}

// Broken twin: the flag also publishes a weak word, read with a plain load after the wait.
__global__ void publish_count_and_value(unsigned long long* count, unsigned long long* value_word,
                                        unsigned int* flag, unsigned long long value, unsigned long long* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    *value_word = value;
    atomicMax(count, value);  // expect-strict: release-missing
    st_volatile(flag, 1);  // expect: release-missing
  } else {
    while (ld_volatile32(flag) == 0) {  // expect: acquire-missing
    }
    out[blockIdx.x] = ld_volatile(count) + *value_word;
  }
}
// Not a strong pair: data written with a volatile store, not an atomic or a release: the
// pre-Volta idiom of a serialized reduction (block 0 stores its result, fences, raises the flag;
// the others wait and read the result with a volatile load, no fence after the wait). By the PTX
// model the read may be ordered before the wait's observation; but a volatile-style read after
// the wait is the disputed form of acquire-missing (docs/checks/acquire-missing.md,
// "Volatile-style reads"): strict tier, with the dispute and a decided data link.
__device__ __forceinline__ void st_volatile64(unsigned long long* p, unsigned long long v) {
  asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__global__ void publish_volatile_result(unsigned long long* result, unsigned int* flag, unsigned long long value,
                                        unsigned long long* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    st_volatile64(result, value);
    __threadfence();
    st_volatile(flag, 1);
  } else {
    while (ld_volatile32(flag) == 0) {  // expect-strict: acquire-missing
    }
    out[blockIdx.x] = ld_volatile(result);
  }
}
