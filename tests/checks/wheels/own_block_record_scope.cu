// scope-too-narrow's partner is the one acquire- and release-missing use (issue 34, nvCOMP's
// Snappy decoder, docs/real-code.md "Shapes R and B": `.cta` fences and `.cta` flag accesses on a
// per-block record). Each block keeps a record at `records + blockIdx.x`; thread 0 (warp 0)
// writes a value and a status into it, fences at .cta and raises the record's ready word with a
// relaxed .cta store; thread 32 (warp 1) polls the word with relaxed .cta loads, fences at .cta
// and reads the value and the status.
//  - Safe: the flag's address carries the block index at the record's stride on both sides, so
//    the partner is a thread of this block (ProtocolModel::partnerInOwnBlock): .cta covers it. No
//    finding (main's binary asked .gpu, "another-cta", at both fences).
//  - Broken twin: two blocks share a record (`records + blockIdx.x / 2`); the even block
//    publishes, the odd one waits: the partner is another block and .cta is too narrow at both
//    fences: scope-too-narrow in the default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s

struct Record {
  unsigned long long bytes;
  int value[12];
  int status;
  int ready;
};

__device__ __forceinline__ void store_cta(int* p, int v) {
  asm volatile("st.relaxed.cta.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ int load_cta(const int* p) {
  int v;
  asm volatile("ld.relaxed.cta.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Safe: the block's own record.
__global__ void __launch_bounds__(64) own_record(const int* __restrict__ in, Record* records, int* out) {
  Record* r = records + blockIdx.x;
  if (threadIdx.x == 0) {
    r->value[3] = in[blockIdx.x] * 2;
    r->status = 1;
    __threadfence_block();
    store_cta(&r->ready, 1);
  } else if (threadIdx.x == 32) {
    while (load_cta(&r->ready) == 0) {
    }
    __threadfence_block();
    out[blockIdx.x] = r->value[3] + r->status;
  }
}

// Broken twin: a record shared by two blocks.
__global__ void __launch_bounds__(64) pair_record(const int* __restrict__ in, Record* records, int* out) {
  Record* r = records + (blockIdx.x >> 1);
  if (threadIdx.x == 0 && (blockIdx.x & 1) == 0) {
    r->value[3] = in[blockIdx.x] * 2;
    r->status = 1;
    __threadfence_block();  // expect: scope-too-narrow
    store_cta(&r->ready, 1);
  } else if (threadIdx.x == 32 && (blockIdx.x & 1)) {
    while (load_cta(&r->ready) == 0) {
    }
    __threadfence_block();  // expect: scope-too-narrow
    out[blockIdx.x] = r->value[3] + r->status;
  }
}
