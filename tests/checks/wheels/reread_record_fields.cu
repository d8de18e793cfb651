// Shape B'' of NCCL's AlltoAll_LL (docs/real-code.md, "NCCL: two fields of one record behind a
// pointer read from memory"): queue records of 296 bytes in an array whose pointer lives in a
// context struct in global memory (the kernel's pointer parameter); each block's queue is picked
// at an index read from memory, which the analysis cannot bound. Producer blocks reserve entries
// with a relaxed atomic add on the record's reservation counter (+0); consumer blocks wait until
// the host's proxy has drained their queue, polling the consumed count (+184) with relaxed loads.
// Under one value of the array's pointer the two fields never meet ([0, 8) and [184, 192) modulo
// 296, whatever the indices), and every thread reads that pointer from the same word of the
// context, which no thread rewrites: the reservation is no signal for that wait. Each thread
// touches only its own word of `words` (the host hands out `owner` as a permutation), so nothing
// is handed from a producer to a consumer. The kernel also logs through a pointer built from two
// halves, which the analysis cannot name, so it cannot show the context's word unwritten.
// Main took the reservation for the wait's signal (the two reads of the array's pointer taken for
// one buffer: `same-buffer`) and reported acquire-missing at the poll and release-missing at the
// reservation, in the default tier. The accesses meet only if the pointer read twice differs,
// which the PTX does not show: the link is undecided (`reread-pointer`), both findings strict.
// Broken twin: the producers raise the count the consumers poll (+184, the same field on both
// sides, at two indices read from memory: `same-buffer`, decided) after writing the words the
// consumers read (`owner` pairs them): no release and no acquire, in the default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
// RUN: not %fenceline check --strict --arch sm_90a --format json %s | FileCheck %s --check-prefix=JSON
// JSON: "how": "reread-pointer"
// JSON: "how": "flag-reread-pointer"
// JSON: "how": "same-buffer"

struct Queue {                     // 296 bytes
  unsigned long long reserved;     // +0: entries reserved by the producers
  unsigned long long pad0[22];     // +8
  unsigned long long consumed;     // +184: entries the host's proxy has drained
  unsigned long long pad1[13];     // +192
};
static_assert(sizeof(Queue) == 296, "record size");
static_assert(__builtin_offsetof(Queue, consumed) == 184, "consumed");

struct Context {
  Queue* queues;                   // read by every thread; no thread rewrites it
  const int* dst;                  // the queue a producer block reserves in
  const int* src;                  // the queue a consumer block waits on
  const int* owner;                // each thread's word (a permutation, from the host)
  unsigned long long* words;
  unsigned int logLo, logHi;       // a log buffer's address, in two halves
};

__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing
  return v;
}
__device__ __forceinline__ void add_relaxed(unsigned long long* p) {
  asm volatile("red.relaxed.gpu.global.add.u64 [%0], 1;" ::"l"(p) : "memory");  // expect-strict: release-missing
}
// The twin's own copies (one line, one kernel's findings).
__device__ __forceinline__ unsigned long long ld_relaxed_twin(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ void add_relaxed_twin(unsigned long long* p) {
  asm volatile("red.relaxed.gpu.global.add.u64 [%0], 1;" ::"l"(p) : "memory");  // expect: release-missing
}
__device__ __forceinline__ unsigned int* logOf(const Context* ctx) {
  unsigned int* p;
  asm("mov.b64 %0, {%1, %2};" : "=l"(p) : "r"(ctx->logLo), "r"(ctx->logHi));
  return p;
}

// Safe: the reservation (+0) and the consumed count (+184) are two fields of every record.
__global__ void reserve_and_wait(const Context* ctx, unsigned long long target) {
  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long* word = ctx->words + ctx->owner[t];
  logOf(ctx)[t] = blockIdx.x;
  if (blockIdx.x & 1) {
    *word = t;
    add_relaxed(&ctx->queues[ctx->dst[blockIdx.x]].reserved);
  } else {
    while (ld_relaxed(&ctx->queues[ctx->src[blockIdx.x]].consumed) < target) {}
    *word += 1;
  }
}

// Broken twin: the producers raise the field the consumers poll, after writing their words.
__global__ void count_and_wait(const Context* ctx, unsigned long long target) {
  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long* word = ctx->words + ctx->owner[t];
  logOf(ctx)[t] = blockIdx.x;
  if (blockIdx.x & 1) {
    *word = t;
    add_relaxed_twin(&ctx->queues[ctx->dst[blockIdx.x]].consumed);
  } else {
    while (ld_relaxed_twin(&ctx->queues[ctx->src[blockIdx.x]].consumed) < target) {}
    *word += 1;
  }
}
