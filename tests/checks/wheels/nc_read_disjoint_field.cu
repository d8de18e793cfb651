// Shape N2 of the NCCL sample (docs/real-code.md, "NCCL (issue 34)"): blocks share a queue
// descriptor (NCCL's is reached through a pointer read from memory; here a kernel parameter). A block advances the descriptor's
// progress counter with a relaxed atomic and publishes that with another relaxed atomic (the
// "done" mark), no fence between; a block waits for the mark (relaxed poll, then an acquire fence)
// and reads the descriptor's size field with ld.global.nc (__ldg), which nothing writes while the
// kernel runs. The memory analysis proves the size field and the counter apart; that proof is no
// evidence that the read reads the write, so the pairing is not a decided link: no default-tier
// release-missing (the counter's own relaxed update, read by no guarded read, is at most strict).
// The twin reads the progress counter itself (a coherent load) after the wait: the read decidedly
// reads the write that the relaxed mark does not release: release-missing, default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Queue {
  unsigned long long progress;  // advanced by the blocks
  unsigned long long done;      // the mark the others wait for
  int size;                     // set by the host before the launch
  int pad;
};

__device__ __forceinline__ void advance(unsigned long long* p) {
  asm volatile("red.relaxed.gpu.global.add.u64 [%0], 1;" ::"l"(p) : "memory");
}
__device__ __forceinline__ void mark(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect-strict: release-missing
}
__device__ __forceinline__ void mark_twin(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect: release-missing
}
// The nc read after the wait is of a field this kernel never writes: strict tier (nc-unwritten).
__device__ __forceinline__ unsigned long long poll(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing
  return v;
}
__device__ __forceinline__ unsigned long long poll_twin(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing
  return v;
}
__device__ __forceinline__ void acquire() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// Safe: the size field is never written while the kernel runs.
__global__ void queue_size_after_mark(Queue* q, unsigned long long epoch, int* out) {
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) {
      advance(&q->progress);
      mark(&q->done, epoch);
    } else {
      while (poll(&q->done) < epoch) {
      }
      acquire();
      out[blockIdx.x] = __ldg(&q->size);
    }
  }
}

// Broken twin: the waiting block reads the counter the first block advanced.
__global__ void queue_progress_after_mark(Queue* q, unsigned long long epoch, unsigned long long* out) {
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0) {
      advance(&q->progress);
      mark_twin(&q->done, epoch);
    } else {
      while (poll_twin(&q->done) < epoch) {
      }
      acquire();
      out[blockIdx.x] = q->progress + __ldg(&q->size);
    }
  }
}
