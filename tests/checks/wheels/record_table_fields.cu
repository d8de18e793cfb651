// Shape F of the NVSHMEM sample (docs/real-code.md, "NVSHMEM (issue 34)"): a table of channel
// records in global memory, its pointer read from the kernel's __constant__ state (one word, which
// no thread writes, so every thread reads the same pointer). A thread drains a mask of pending
// channels (atomicExch, then the lowest set bit in turn): for each, it reads the channel's ready
// count, takes the channel's lock (relaxed CAS spin, then fence.acq_rel.cta), raises the posted
// count with atomicMax, rings the doorbell when the configuration word says so, and releases the
// lock (fence.acq_rel.cta, volatile store of 0). The records come from two tables (near and far
// channels), indexed by numbers the analysis cannot bound (a bit position of a loaded mask).
// The lock word (+80), the ready count (+96), the posted count (+104) and the configuration
// (+24) are different fields of 168-byte records: whatever the indices, [80, 84) never meets
// [96, 104) modulo 168. Nothing weak is handed from one lock holder to the next: no default-tier
// finding (the lock CAS of one record was taken for the data the ready read of another reads).
// The twin hands a weak field over under the same .cta-scoped lock: the holder stores the count it
// posted in the record (`last`, +112) and the next holder, maybe in another CTA, reads it. The
// field is the same in every record: the bytes meet (same-buffer), and .cta does not order them
// for another CTA's holder: scope-too-narrow at the release.
// Strict tier in both (each helper is inlined twice, once per table): the lock's .cta acquire
// (a peer might raise the lock word, not decided), and the release before the unlock with the
// kernel's log store (a parameter buffer, maybe the same memory as a record) as the data.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Channel {                 // 168 bytes
  unsigned long long* ring;      // +0
  unsigned int id;               // +8
  unsigned int pad0[3];          // +12
  unsigned int config;           // +24: written by the host before the launch
  unsigned int pad1[13];         // +28
  int lock;                      // +80
  unsigned int pad2;             // +84
  unsigned long long reserved;   // +88
  unsigned long long ready;      // +96: raised by the producers
  unsigned long long posted;     // +104: raised under the lock
  unsigned long long last;       // +112: the twin's hand-off field
  unsigned int* doorbell;        // +120
  unsigned long long pad3[5];    // +128
};
static_assert(sizeof(Channel) == 168, "record size");

struct Channels {
  Channel* near;
  Channel* far;
  unsigned int* pending;  // one bit per channel with work not yet posted
  int nearCount, count;
};

__constant__ Channels g_channels;

__device__ __forceinline__ unsigned long long ld_volatile(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void lock(int* l) {
  int old;
  do {
    asm volatile("atom.relaxed.gpu.global.cas.b32 %0, [%1], 0, 1;" : "=r"(old) : "l"(l) : "memory");
  } while (old == 1);
  asm volatile("fence.acq_rel.cta;" ::: "memory");  // expect-strict: scope-too-narrow scope-too-narrow
}
__device__ __forceinline__ void unlock(int* l) {
  asm volatile("fence.acq_rel.cta;" ::: "memory");  // expect-strict: scope-too-narrow scope-too-narrow
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(l), "r"(0) : "memory");  // expect-strict: release-missing release-missing
}

__device__ __forceinline__ void post(Channel* c) {
  const unsigned long long ready = ld_volatile(&c->ready);
  lock(&c->lock);
  if (atomicMax(&c->posted, ready) < ready && (c->config & 1))
    *reinterpret_cast<volatile unsigned int*>(c->doorbell) = static_cast<unsigned int>(ready);
  unlock(&c->lock);
}

// Safe: the fields the lock holders touch are the lock, the counters and the configuration.
__global__ void flush(int word, unsigned int* log) {
  log[blockIdx.x * blockDim.x + threadIdx.x] = word;
  unsigned int bits = atomicExch(&g_channels.pending[word], 0u);
  while (bits) {
    const int index = word * 32 + __ffs(bits) - 1;
    bits &= bits - 1;
    if (index >= g_channels.count) break;
    if (index < g_channels.nearCount) post(&g_channels.near[index]);
    else post(&g_channels.far[index - g_channels.nearCount]);
  }
}

// The twin's own copies (a fix of the scope edits these helpers alone).
__device__ __forceinline__ void lock_handoff(int* l) {
  int old;
  do {
    asm volatile("atom.relaxed.gpu.global.cas.b32 %0, [%1], 0, 1;" : "=r"(old) : "l"(l) : "memory");
  } while (old == 1);
  asm volatile("fence.acq_rel.cta;" ::: "memory");  // expect-strict: scope-too-narrow scope-too-narrow
}
__device__ __forceinline__ void unlock_handoff(int* l) {
  asm volatile("fence.acq_rel.cta;" ::: "memory");  // expect: scope-too-narrow scope-too-narrow
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(l), "r"(0) : "memory");  // expect-strict: release-missing release-missing
}

// Broken twin: the holder reads the count the previous holder stored in `last` (a weak field)
// and stores its own; the previous holder may run in another CTA, and .cta orders nothing for it.
__device__ __forceinline__ void post_handoff(Channel* c) {
  const unsigned long long ready = ld_volatile(&c->ready);
  lock_handoff(&c->lock);
  if (c->last < ready) {
    c->last = ready;
    if (c->config & 1) *reinterpret_cast<volatile unsigned int*>(c->doorbell) = static_cast<unsigned int>(ready);
  }
  unlock_handoff(&c->lock);
}

__global__ void flush_handoff(int word, unsigned int* log) {
  log[blockIdx.x * blockDim.x + threadIdx.x] = word;
  unsigned int bits = atomicExch(&g_channels.pending[word], 0u);
  while (bits) {
    const int index = word * 32 + __ffs(bits) - 1;
    bits &= bits - 1;
    if (index >= g_channels.count) break;
    if (index < g_channels.nearCount) post_handoff(&g_channels.near[index]);
    else post_handoff(&g_channels.far[index - g_channels.nearCount]);
  }
}

