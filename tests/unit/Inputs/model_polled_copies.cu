// Kernels for ModelPolledCopiesTest.cpp: copies of polled words
// (ProtocolModel::isPolledCopyStore, isCopyOfPolledWord; compiled by nvcc, sm_90a).

struct Queue {
  unsigned long long done;                      // +0: completions (the wait's flag)
  const volatile unsigned long long* consumed;  // +8: the consumer's index
  unsigned long long cached;                    // +16: the producers' copy of it
  unsigned long long other;                     // +24
};

__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// The copy is stored only with the value the consumer-index spin exits on:
// a read of it is no guarded read.
extern "C" __global__ void copy_only(Queue* q, unsigned long long need) {
  while (ld_relaxed(&q->done) < need) {
  }
  unsigned long long c = ld_relaxed(&q->cached);
  if (c < need) {
    do c = *q->consumed;
    while (c < need);
    st_relaxed(&q->cached, c);
  }
  atomicMax(&q->done, need + 1);
}

// The same copy, and a store of a computed value into the same word: the
// word is data (the copy store alone is still a polled copy store).
extern "C" __global__ void copy_and_value(Queue* q, unsigned long long need) {
  while (ld_relaxed(&q->done) < need) {
  }
  unsigned long long c = ld_relaxed(&q->cached);
  if (c < need) {
    do c = *q->consumed;
    while (c < need);
    st_relaxed(&q->cached, c);
  }
  if (blockIdx.x == 0) st_relaxed(&q->cached, need);
  atomicMax(&q->done, need + 1);
}

// A value computed from the polled one (seen + 1) is not a copy; nor is a
// word that an atomic also writes.
extern "C" __global__ void derived_and_atomic(Queue* q, unsigned long long need) {
  while (ld_relaxed(&q->done) < need) {
  }
  unsigned long long c = ld_relaxed(&q->cached);
  unsigned long long d = ld_relaxed(&q->other);
  if (c < need) {
    do c = *q->consumed;
    while (c < need);
    st_relaxed(&q->cached, c + 1);
    st_relaxed(&q->other, c);
    atomicMax(&q->other, c);
  }
  atomicMax(&q->done, need + d);
}

// The copy used as a spin's target (a baseline: wait until the index passes
// what the copy holds): a stale copy ends that wait early. No cache check.
extern "C" __global__ void copy_as_target(Queue* q, unsigned long long need) {
  while (ld_relaxed(&q->done) < need) {
  }
  const unsigned long long target = ld_relaxed(&q->cached) + 1;
  unsigned long long c;
  do c = *q->consumed;
  while (c < target);
  st_relaxed(&q->cached, c);
  atomicMax(&q->done, need + 1);
}
