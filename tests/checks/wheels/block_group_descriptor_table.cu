// Shape G of the NCCL sample (docs/real-code.md, "NCCL (issue 34)"): per-context queue
// descriptors of this GPU, kept in an array that a group of blocks reaches through a table of
// group records: `groups[g].contexts[c]`, where the group g is computed from the block's position
// alone (`blockIdx.x / 3` or `blockIdx.x >> shift`, chosen by a kernel parameter) and the context c
// is read from memory. The blocks of a group reserve queue slots with a relaxed .gpu atom.add,
// write their entries, take their turn on a commit counter (acquire .gpu poll, release .gpu store)
// and the consumer polls the commit counter with volatile loads and a fence.acquire.gpu: every
// partner is a block of this launch, so .gpu is the scope the protocol needs. An index computed
// from the block's position takes the same values on every rank: the table holds an entry per
// group of blocks (this GPU's) or a peer per group; which one, only its contents say. So the
// scope's "another GPU touches it" link is not decided: strict tier at most.
// The twins reach the same descriptors through a table indexed by something that varies from rank
// to rank: the peer a ring record names (read from memory, as `peers[ring->next]`), or the rank
// added to the group (`(rank + blockIdx.x) % world`): the descriptors are another GPU's, and .gpu
// does not cover the peer's threads: scope-too-narrow in the default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Context {
  unsigned long long produced;   // slot reservations
  unsigned long long committed;  // entries published, in slot order
  float* entries;                // the queue's entries (kQueue per context)
};

struct Group {
  Context* contexts;  // this group's descriptors
  const int* work;    // the context of each work item
};

struct Ring {
  int prev, next;  // neighbouring ranks
};

struct Args {
  Group* groups;     // one record per group of blocks
  Group* peers;      // the ranks' records, indexed by rank (the twins)
  const Ring* ring;  // this rank's neighbours (the twins)
  float* out;
  int mode, shift, rank, world;
};

constexpr int kQueue = 64;

__device__ __forceinline__ unsigned long long reserve(unsigned long long* counter) {
  unsigned long long slot;
  asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], 1;" : "=l"(slot) : "l"(counter) : "memory");
  return slot;
}
__device__ __forceinline__ unsigned long long ld_acquire_gpu(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long ld_volatile(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// The group of blocks a block belongs to: computed from its position alone.
__device__ __forceinline__ int group_of_block(const Args& a) {
  return a.mode == 3 ? blockIdx.x / 3 : blockIdx.x >> a.shift;
}

// Thread 0 of a producer block reserves a slot, writes its entry, waits its turn and commits;
// thread 0 of the consumer waits for `count` commits and reads the entries.
__device__ __forceinline__ void produce(Context* ctx, float value) {
  const unsigned long long slot = reserve(&ctx->produced);
  ctx->entries[slot % kQueue] = value;
  while (ld_acquire_gpu(&ctx->committed) != slot) {
  }
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(&ctx->committed), "l"(slot + 1) : "memory");  // expect-strict: scope-too-narrow
}
__device__ __forceinline__ float consume(Context* ctx, unsigned long long count) {
  while (ld_volatile(&ctx->committed) < count) {
  }
  asm volatile("fence.acquire.gpu;" ::: "memory");  // expect-strict: scope-too-narrow
  float sum = 0.0f;
  for (unsigned long long s = 0; s < count; ++s) sum += ctx->entries[s % kQueue];
  return sum;
}

// Safe: this GPU's descriptors, reached through the record of the block's group.
__global__ void descriptors_of_block_group(Args a) {
  if (threadIdx.x != 0) return;
  const Group& g = a.groups[group_of_block(a)];
  Context* ctx = g.contexts + g.work[blockIdx.x];
  if (blockIdx.x % 3 != 0) produce(ctx, static_cast<float>(blockIdx.x));
  else a.out[blockIdx.x] = consume(ctx, 2);
}

// The first twin's own copies (a fix of its scope edits these alone).
__device__ __forceinline__ void produce_ring(Context* ctx, float value) {
  const unsigned long long slot = reserve(&ctx->produced);
  ctx->entries[slot % kQueue] = value;
  while (ld_acquire_gpu(&ctx->committed) != slot) {
  }
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(&ctx->committed), "l"(slot + 1) : "memory");  // expect: scope-too-narrow
}
__device__ __forceinline__ float consume_ring(Context* ctx, unsigned long long count) {
  while (ld_volatile(&ctx->committed) < count) {
  }
  asm volatile("fence.acquire.gpu;" ::: "memory");  // expect: scope-too-narrow
  float sum = 0.0f;
  for (unsigned long long s = 0; s < count; ++s) sum += ctx->entries[s % kQueue];
  return sum;
}

// Broken twin: the descriptors of the next rank of the ring (an index read from memory).
__global__ void descriptors_of_ring_peer(Args a) {
  if (threadIdx.x != 0) return;
  const Group& g = a.peers[a.ring->next];
  Context* ctx = g.contexts + g.work[blockIdx.x];
  if (blockIdx.x % 3 != 0) produce_ring(ctx, static_cast<float>(blockIdx.x));
  else a.out[blockIdx.x] = consume_ring(ctx, 2);
}

// The second twin's own copies.
__device__ __forceinline__ void produce_shifted(Context* ctx, float value) {
  const unsigned long long slot = reserve(&ctx->produced);
  ctx->entries[slot % kQueue] = value;
  while (ld_acquire_gpu(&ctx->committed) != slot) {
  }
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(&ctx->committed), "l"(slot + 1) : "memory");  // expect: scope-too-narrow
}
__device__ __forceinline__ float consume_shifted(Context* ctx, unsigned long long count) {
  while (ld_volatile(&ctx->committed) < count) {
  }
  asm volatile("fence.acquire.gpu;" ::: "memory");  // expect: scope-too-narrow
  float sum = 0.0f;
  for (unsigned long long s = 0; s < count; ++s) sum += ctx->entries[s % kQueue];
  return sum;
}

// Broken twin: the group's record picked with the rank added to the block's group.
__global__ void descriptors_of_rank_shifted_group(Args a) {
  if (threadIdx.x != 0) return;
  const Group& g = a.peers[(a.rank + group_of_block(a)) % a.world];
  Context* ctx = g.contexts + g.work[blockIdx.x];
  if (blockIdx.x % 3 != 0) produce_shifted(ctx, static_cast<float>(blockIdx.x));
  else a.out[blockIdx.x] = consume_shifted(ctx, 2);
}
