// A task slot that the host takes (issue 34 P2, docs/real-code.md "Shapes P1 and P2"; Mooncake's
// enqueueTaskKernel in libmooncake_pg_device.so has this form, this is our own code). One thread
// fills the fields of its 88-byte record, `membar.sys`, raises the record's flag (1) and spins
// until the flag is 0 again: the host proxy clears it after taking the task. Then it reads the
// record's two counters with ld.acquire.sys and, when they differ, copies and stores one counter
// with st.release.sys. No instruction of the kernel stores 0 into the flag: the wait's partner is
// the host (unknown-partner, strict).
//
// The record's address is `tasks + 88 * slot` computed twice, once on the parameter converted to
// a global address (the field stores, the flag) and once on the generic parameter (the counters),
// each with its own `mad.lo.s64` (written here in inline PTX: nvcc 13 for sm_103 emits this form
// for Mooncake's code, for sm_80 and sm_90 one shared `mul.lo`). main's binary (m28a) named the
// product of each mad a term of its own, so the flag at +0 and the counter stored at +16 were "at
// offsets not provably apart" (same-buffer), the counter store became the wait's in-kernel signal
// and the fields its data: a default-tier acquire-missing. With the two products one term
// (model/Values.cpp parameterProduct) the offsets are apart and the finding is strict.
//
// The twin that must still fire: another block (the last) takes the task itself, writing the
// record's counter and clearing the flag (a kernel store of the value the wait leaves on).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

struct Task {
  volatile uint8_t flag;  // +0: 1 raised by the kernel, 0 cleared by the taker
  uint64_t head;          // +8
  uint64_t tail;          // +16
  int op;                 // +24
  uint64_t a, b;          // +32, +40
  int n;                  // +48
  uint64_t c, d;          // +56, +64
  bool e;                 // +72
  uint64_t f;             // +80
};
static_assert(sizeof(Task) == 88, "the record is 88 bytes");

// &tasks[slot] as nvcc computes it for sm_103: a mad of its own at each use.
__device__ __forceinline__ Task* record(Task* tasks, uint64_t slot) {
  Task* t;
  asm("mad.lo.s64 %0, %1, 88, %2;" : "=l"(t) : "l"(slot), "l"(tasks));
  return t;
}
__device__ __forceinline__ Task* global_record(Task* tasks, uint64_t slot) {
  uint64_t g, t;
  asm("cvta.to.global.u64 %0, %1;" : "=l"(g) : "l"(tasks));
  asm("mad.lo.s64 %0, %1, 88, %2;" : "=l"(t) : "l"(slot), "l"(g));
  return reinterpret_cast<Task*>(t);
}
__device__ __forceinline__ uint64_t load_acquire_sys(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_release_sys(uint64_t* p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
// The flag's accesses, written where they are used so that each finding's line is the kernel's.
#define STORE_FLAG(p, v) asm volatile("st.volatile.global.u8 [%0], %1;" ::"l"(p), "h"((unsigned short)(v)) : "memory")
#define LOAD_FLAG(p, v) asm volatile("ld.volatile.global.u8 %0, [%1];" : "=h"(v) : "l"(p) : "memory")

__global__ void enqueue_task(Task* tasks, uint64_t slot, int op, uint64_t a, uint64_t b, int n, uint64_t* out) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  Task* g = global_record(tasks, slot);
  g->op = op;
  g->a = a;
  g->b = b;
  g->n = n;
  asm volatile("membar.sys;" ::: "memory");
  STORE_FLAG(&g->flag, 1);
  unsigned short seen;
  while (true) { LOAD_FLAG(&g->flag, seen); if (seen == 0) break; asm volatile("membar.sys;" ::: "memory"); }  // expect-strict: acquire-missing
  Task* t = record(tasks, slot);
  const uint64_t head = load_acquire_sys(&t->head), tail = load_acquire_sys(&t->tail);
  if (head != tail) {
    for (int i = 0; i < n; ++i) out[i] = a + i;
    store_release_sys(&t->tail, head);
  }
}

// Twin: the last block takes the task in the kernel: it waits for the flag, reads the fields,
// writes the record's head and clears the flag (0, the value the first block's wait leaves on),
// with no fence on either side (its own wait's acquire-missing and its clear's release-missing
// are true as well).
__global__ void enqueue_task_taken_in_kernel(Task* tasks, uint64_t slot, int op, uint64_t a, uint64_t b, int n,
                                             uint64_t* out) {
  if (threadIdx.x != 0) return;
  Task* g = global_record(tasks, slot);
  unsigned short seen;
  if (blockIdx.x == 0) {
    g->op = op;
    g->a = a;
    g->b = b;
    g->n = n;
    asm volatile("membar.sys;" ::: "memory");
    STORE_FLAG(&g->flag, 1);
    while (true) { LOAD_FLAG(&g->flag, seen); if (seen == 0) break; asm volatile("membar.sys;" ::: "memory"); }  // expect: acquire-missing
    Task* t = record(tasks, slot);
    const uint64_t head = load_acquire_sys(&t->head), tail = load_acquire_sys(&t->tail);
    if (head != tail) {
      for (int i = 0; i < n; ++i) out[i] = a + i;
      store_release_sys(&t->tail, head);
    }
  } else if (blockIdx.x == gridDim.x - 1) {
    do { LOAD_FLAG(&g->flag, seen); } while (seen != 1);  // expect: acquire-missing
    g->head = g->a + static_cast<uint64_t>(g->op);
    STORE_FLAG(&g->flag, 0);  // expect: release-missing
  }
}
