// Shape B of NCCL's GIN descriptors (docs/real-code.md, "NCCL: first look at f634c49 and the
// descriptor's fields"):
// per-context queue descriptors, 296-byte records in an array that a group record points to; the
// group record is picked from a by-value table in the kernel's parameters at an index computed
// from the block's position (a mask or a division, as the launch says). Each branch reads the
// group's descriptor pointer again (two reads of one slot expression). The producer reserves a
// slot (atomicAdd, +0), claims it in order (relaxed CAS spin, +8) and raises the completed count
// with a relaxed max (+16); the consumer waits for the count with relaxed loads and reads a
// configuration field that the host wrote before the launch (+62). The CAS and the reservation are
// the queue's own counters and the field read is another one: [8, 16) never meets [62, 64) modulo
// the record size, whatever the descriptor indices. No default-tier finding.
// The twin also hands a weak field over (`note`, +24, a plain store before the relaxed signal, a
// plain load after the relaxed wait): release-missing and acquire-missing in the default tier.
// The group index and the record index are computed once, before the roles branch; each role
// reads the group's descriptor pointer itself. In the twin, the consumer's wait names the completed
// count's relaxed max as its signal (main named the reservation's atomicAdd at +0, a field the
// wait does not read). Main is silent on the safe kernel too: with nothing else written, the
// configuration read is no guarded read here, where NCCL's kernels write elsewhere; the NCCL
// images are the measure (docs/real-code.md).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
// RUN: not %fenceline check --arch sm_90a --color never %s 2>&1 | FileCheck %s
// CHECK: descriptor_fields_two_reads.cu:[[@LINE+37]]:3: warning: spin loop exits on a relaxed load
// CHECK: descriptor_fields_two_reads.cu:[[@LINE+45]]:3: note: evidence: the signal

struct Desc {                    // 296 bytes
  unsigned long long reserved;   // +0: slot reservations (atomicAdd)
  unsigned long long claimed;    // +8: claimed in order (atomicCAS)
  unsigned long long done;       // +16: completed count, raised with a relaxed atomicMax (the signal)
  unsigned long long note;       // +24: the twin's weak field
  unsigned long long pad0[3];    // +32
  unsigned short pad1[3];        // +56
  unsigned short config;         // +62: written by the host before the launch
  unsigned long long pad2[29];   // +64
};
static_assert(sizeof(Desc) == 296, "record size");
static_assert(__builtin_offsetof(Desc, config) == 62, "config");

struct Group {
  Desc* descs;                   // the group's descriptors
  int count;
};
struct Args {
  Group* groups[8];              // by value: read at an index the analysis cannot name
  int* ctx;
  unsigned long long* out;
  unsigned char pow2, n;
};

// The block's group: by a mask or by a division, as the launch says.
__device__ __forceinline__ unsigned char groupIndex(const Args& args) {
  return args.pow2 ? (blockIdx.x & (args.n - 1)) : (blockIdx.x % 3);
}
__device__ __forceinline__ unsigned int groupRecord(const Args& args) {
  return args.pow2 ? blockIdx.x >> 2 : blockIdx.x / 3;
}

__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ unsigned long long cas_relaxed(unsigned long long* p, unsigned long long c, unsigned long long v) {
  unsigned long long old;
  asm volatile("atom.relaxed.gpu.global.cas.b64 %0, [%1], %2, %3;" : "=l"(old) : "l"(p), "l"(c), "l"(v) : "memory");
  return old;
}
__device__ __forceinline__ void max_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect: release-missing
}

template <bool kTwin>
__device__ __forceinline__ void run(const Args& args) {
  const unsigned char k = groupIndex(args);
  const unsigned int r = groupRecord(args);
  if (threadIdx.x == 0) {
    Desc* d = args.groups[k][r].descs + args.ctx[blockIdx.x];
    unsigned long long slot = atomicAdd(&d->reserved, 1ull);
    while (cas_relaxed(&d->claimed, slot, slot + 1) != slot) {}
    if (kTwin) d->note = slot;
    max_relaxed(&d->done, slot + 1);
  } else if (threadIdx.x == 32) {
    Desc* d = args.groups[k][r].descs + args.ctx[blockIdx.x + 1];
    const unsigned long long want = args.out[blockIdx.x];
    while (ld_relaxed(&d->done) < want) {}
    args.out[blockIdx.x] = kTwin ? d->note : d->config;
  }
}

__global__ void queue(const __grid_constant__ Args args) { run<false>(args); }
__global__ void queue_twin(const __grid_constant__ Args args) { run<true>(args); }
