// A decoupled look-back whose block scratch is chosen at run time (docs/real-code.md, "Shape B:
// a block's scratch that is shared memory or its own global slice"): the block's temporary
// storage is a shared array, or, when the caller passes a global buffer, the block's slice of it,
// `vsmem + blockIdx.x * 64` (a `selp` or a merge of two definitions of one pointer). Thread 0
// publishes the block's aggregate in its tile word (status and value in one `.v2` store), polls
// the previous tile's word with a relaxed `.v2` load (the value is the poll's own payload: no
// acquire needed for it), stores the prefix into the block's scratch, publishes the inclusive
// sum, and the block reads the prefix from its scratch after `__syncthreads()`.
//  - Every definition of the scratch pointer is private to the block: the shared array is the
//    CTA's own, and the slice's stride (512 bytes) keeps the blocks apart. The partner of the
//    tile words is another block, which writes its own scratch: the prefix store is no data of
//    the partner's signal, the read after the barrier reads nothing a partner wrote. No finding.
//  - The twins index the global choice by a value two blocks share (`blockIdx.x >> 1`): the block
//    polls its predecessor, which may be the other block of its pair and has written the slice
//    this block reads. release-missing at the publish and acquire-missing at the poll, in the
//    default tier.
// The rule: model/OwnBlockChoices.cpp (MemoryAnalysis::blockSlices of addresses with several
// definitions).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Word {
  unsigned long long status, value;
};

constexpr unsigned long long kPartial = 1, kInclusive = 2;  // 0: not yet published

__device__ __forceinline__ void publish(Word* w, unsigned long long status, unsigned long long value) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(w), "l"(status), "l"(value) : "memory");
}
__device__ __forceinline__ Word poll(const Word* w) {
  Word r;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(r.status), "=l"(r.value) : "l"(w) : "memory");
  return r;
}
__device__ __forceinline__ void publish_pair(Word* w, unsigned long long status, unsigned long long value) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(w), "l"(status), "l"(value) : "memory");  // expect: release-missing
}
__device__ __forceinline__ Word poll_pair(const Word* w) {
  Word r;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(r.status), "=l"(r.value) : "l"(w) : "memory");  // expect: acquire-missing
  return r;
}

__device__ __forceinline__ unsigned long long block_sum(const long long* __restrict__ in, long long* red) {
  red[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    long long s = 0;
    for (int i = 0; i < 256; ++i) s += red[i];
    red[0] = s;
  }
  __syncthreads();
  return red[0];
}

// Safe: a merge of two definitions (the shared array's generic address, or the block's slice).
__global__ void __launch_bounds__(256) lookback_merged_scratch(Word* tiles, long long* vsmem,
                                                               const long long* __restrict__ in, long long* out) {
  __shared__ long long shared_scratch[64];
  __shared__ long long red[256];
  long long* scratch = shared_scratch;
  if (vsmem != nullptr) scratch = vsmem + blockIdx.x * 64;
  const unsigned long long sum = block_sum(in, red);
  if (threadIdx.x == 0) {
    unsigned long long prefix = 0;
    if (blockIdx.x > 0) {
      publish(&tiles[blockIdx.x], kPartial, sum);
      Word w;
      do {
        w = poll(&tiles[blockIdx.x - 1]);
      } while (w.status != kInclusive);
      prefix = w.value;
    }
    scratch[3] = prefix;
    publish(&tiles[blockIdx.x], kInclusive, prefix + sum);
  }
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = scratch[3] + in[blockIdx.x * 256 + threadIdx.x];
}

// Safe: the same with a select of the two.
__global__ void __launch_bounds__(256) lookback_selected_scratch(Word* tiles, long long* vsmem, int use_global,
                                                                 const long long* __restrict__ in, long long* out) {
  __shared__ long long shared_scratch[64];
  __shared__ long long red[256];
  long long* slice = vsmem + blockIdx.x * 64;
  long long* scratch = use_global != 0 ? slice : shared_scratch;
  const unsigned long long sum = block_sum(in, red);
  if (threadIdx.x == 0) {
    unsigned long long prefix = 0;
    if (blockIdx.x > 0) {
      publish(&tiles[blockIdx.x], kPartial, sum);
      Word w;
      do {
        w = poll(&tiles[blockIdx.x - 1]);
      } while (w.status != kInclusive);
      prefix = w.value;
    }
    scratch[5] = prefix;
    publish(&tiles[blockIdx.x], kInclusive, prefix + sum);
  }
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = scratch[5] + in[blockIdx.x * 256 + threadIdx.x];
}

// Broken twin: the global choice is one slice per pair of blocks; the predecessor of an odd block
// is the other block of its pair, which stored its prefix into the slice this block reads.
__global__ void __launch_bounds__(256) lookback_pair_slice(Word* tiles, long long* vsmem,
                                                           const long long* __restrict__ in, long long* out) {
  __shared__ long long shared_scratch[64];
  __shared__ long long red[256];
  long long* scratch = shared_scratch;
  if (vsmem != nullptr) scratch = vsmem + (blockIdx.x >> 1) * 64;
  const unsigned long long sum = block_sum(in, red);
  if (threadIdx.x == 0) {
    unsigned long long prefix = 0;
    if (blockIdx.x > 0) {
      publish(&tiles[blockIdx.x], kPartial, sum);
      Word w;
      do {
        w = poll_pair(&tiles[blockIdx.x - 1]);
      } while (w.status != kInclusive);
      prefix = w.value;
    }
    scratch[3] = prefix;
    publish_pair(&tiles[blockIdx.x], kInclusive, prefix + sum);
  }
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = scratch[3] + in[blockIdx.x * 256 + threadIdx.x];
}
