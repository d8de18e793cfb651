// Kernels for ModelProtocolFieldsTest.cpp (compiled by nvcc, sm_90a): the
// partner model's rules for pointers read from memory (issue 11, shape 5):
// distinct fields of one record are distinct objects, the same field of a
// table read at a variable index stays coarse; which loaded pointers are peer
// pointers (scope evidence); a re-read of the polled word is no guarded data.

__device__ __forceinline__ unsigned ld_volatile(const unsigned* p) {
  unsigned v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

struct Mailbox {
  unsigned* inbound;   // polled
  unsigned* expected;  // a counter nobody polls
  float* payload;
};

// pointersFromDistinctFields: mb->expected and mb->inbound are two fields of
// one struct; the store to mb->inbound reads the polled field again.
extern "C" __global__ void struct_fields(const Mailbox* mb) {
  while (ld_volatile(mb->inbound) == 0) {
  }
  atomicAdd(mb->expected, 1u);
  st_relaxed(mb->inbound, 0);
}

// The same in a table of records indexed by block: boxes[b].expected is
// another field than boxes[0].inbound (offsets 8 and 0 modulo the record
// size 24); boxes[b].inbound is the same field of another entry.
extern "C" __global__ void record_table(Mailbox* boxes) {
  while (ld_volatile(boxes[0].inbound) == 0) {
  }
  atomicAdd(boxes[blockIdx.x].expected, 1u);
  st_relaxed(boxes[blockIdx.x].inbound, 1);
}

// A flat table of [flag, counter] per rank: slots 2*rank+1 and 2*rank never
// coincide; slot 2*peer on one rank is slot 2*rank on the peer.
extern "C" __global__ void slot_table(unsigned** slots, int rank, int peer) {
  atomicAdd(slots[2 * rank + 1], 1u);
  st_relaxed(slots[2 * peer], 1);
  while (ld_volatile(slots[2 * rank]) == 0) {
  }
}

// Two disjoint halves of one table read at bounded indices are not two
// fields: a table indexed relative to the rank holds one peer's pointer at
// different slots on different ranks.
extern "C" __global__ void table_halves(unsigned** ptrs, int rank, int peer) {
  st_relaxed(ptrs[4 + (peer & 3)], 1);
  while (ld_volatile(ptrs[rank & 3]) == 0) {
  }
}

// goesThroughPeerPointer: a table indexed by rank is a peer table.
extern "C" __global__ void rank_table(unsigned** flags, int rank) {
  while (ld_volatile(flags[rank]) == 0) {
  }
}

// A table indexed by block holds one entry per block of this launch.
extern "C" __global__ void block_table(unsigned** flags) {
  while (ld_volatile(flags[blockIdx.x]) == 0) {
  }
}

// `if (tid < world) raise(flags[tid])`: the thread index picks a peer.
extern "C" __global__ void thread_table(unsigned** flags, int world) {
  if (threadIdx.x < world) st_relaxed(flags[threadIdx.x], 1);
}

// Issue 34 (NCCL's GIN descriptors): a table read at an index computed from
// the block's position alone (a group of blocks: a quotient, a remainder, a
// shift, a choice between them) holds the same entries on every rank, this
// GPU's per group or a peer per group: Peer::BlockGroup, no evidence either
// way. With the rank added the index varies from rank to rank (Yes), and a
// group's entry of a table chosen by rank is a peer's (Yes).
extern "C" __global__ void block_group_table(unsigned** flags, int groups, int mode, int shift) {
  const int g = mode == 3 ? blockIdx.x / 3 : (blockIdx.x >> shift) % groups;
  while (ld_volatile(flags[g]) == 0) {
  }
}
extern "C" __global__ void rank_shifted_group_table(unsigned** flags, int rank, int world) {
  while (ld_volatile(flags[(rank + blockIdx.x / 2) % world]) == 0) {
  }
}
// `(flags + first)[blockIdx.x]`: a window of the table, one entry per block
// of this launch (the launch's first entry a parameter).
extern "C" __global__ void launch_window_table(unsigned** flags, int first) {
  while (ld_volatile(flags[first + blockIdx.x]) == 0) {
  }
}
// The rank added to the block and wrapped to the table, three ways: a
// compare and a subtraction, a butterfly (xor), a clamp.
extern "C" __global__ void rank_wrapped_by_compare_table(unsigned** flags, int rank, int world) {
  int i = rank + static_cast<int>(blockIdx.x);
  if (i >= world) i -= world;
  while (ld_volatile(flags[i]) == 0) {
  }
}
extern "C" __global__ void rank_xor_block_table(unsigned** flags, int rank) {
  while (ld_volatile(flags[rank ^ static_cast<int>(blockIdx.x)]) == 0) {
  }
}
extern "C" __global__ void rank_clamped_table(unsigned** flags, int rank, int world) {
  while (ld_volatile(flags[min(rank + static_cast<int>(blockIdx.x), world - 1)]) == 0) {
  }
}
extern "C" __global__ void group_of_peer_table(unsigned* const* const* tables, int peer, int groups) {
  while (ld_volatile(tables[peer][blockIdx.x % groups]) == 0) {
  }
}

// A field of a struct reached through a peer-table entry: the peer's struct.
extern "C" __global__ void peer_struct(Mailbox* const* boxes, int peer) {
  st_relaxed(boxes[peer]->inbound, 1);
}

// rereadsPolledWord: after the spin the thread reads the flag word again
// (out[0]) and then another field's word (out[1]).
extern "C" __global__ void reread(const Mailbox* mb, unsigned* out) {
  while (ld_volatile(mb->inbound) == 0) {
  }
  out[0] = ld_volatile(mb->inbound);
  out[1] = *mb->expected;
}

// entriesOfOneTable: a cross-rank barrier's slots behind one pointer table,
// `flags[tid] + 8 * s + rank` raised for the slots beyond the grid and
// `flags[rank] + 8 * blockIdx.x + tid` polled. `data[rank]` makes rank an
// array index (non-negative). The two entries may be one buffer on another
// rank, so the words are compared by offset: apart. Shifted one word down
// (`8 * s + rank - 1`), the first backfilled word may be the last polled one.
template <int kShift>
__device__ void backfill(unsigned** flags, float** data, int rank, float v) {
  data[rank][threadIdx.x] = v;
  if (threadIdx.x < 8) {
    for (int s = blockIdx.x + gridDim.x; s < 64; s += gridDim.x) st_relaxed(flags[threadIdx.x] + s * 8 + rank + kShift, 1);
    while (ld_volatile(flags[rank] + blockIdx.x * 8 + threadIdx.x) == 0) {
    }
  }
}

extern "C" __global__ void table_backfill(unsigned** flags, float** data, int rank, float v) {
  backfill<0>(flags, data, rank, v);
}

extern "C" __global__ void table_backfill_shifted(unsigned** flags, float** data, int rank, float v) {
  backfill<-1>(flags, data, rank, v);
}

// throughOneFixedPointer: a table of 40-byte records behind a pointer read
// from one word of a __constant__ struct (the kernel cannot rewrite it: every
// thread reads the same pointer). A store to record i's count (+8) never is
// record j's flag (+0), whatever i and j: 8 and 0 modulo 40. The same field
// of two records (the flag of i against the flag of j) meets when i == j. The
// same table behind a word of global memory (which a thread may rewrite
// between the two reads) keeps the partner model's coarse May.
struct Record {
  unsigned flag;
  unsigned pad;
  unsigned long long count;
  unsigned char rest[24];
};
struct Tables {
  Record* records;
};
__constant__ Tables c_tables;
__device__ Tables g_tables;

template <bool kConstant, bool kSameField>
__device__ void record_wait(int i, int j) {
  Record* r = kConstant ? c_tables.records : g_tables.records;
  st_relaxed(kSameField ? &r[i].flag : reinterpret_cast<unsigned*>(&r[i].count), 1);
  while (ld_volatile(&r[j].flag) == 0) {
  }
}

extern "C" __global__ void fixed_table_fields(int i, int j) { record_wait<true, false>(i, j); }
extern "C" __global__ void fixed_table_same_field(int i, int j) { record_wait<true, true>(i, j); }
extern "C" __global__ void global_table_fields(int i, int j) { record_wait<false, false>(i, j); }

// The scope a flag pinned to the block needs (session 25, nvCOMP's
// unsnap_kernel): a per-block record's ready word, raised by thread 0 and
// polled by thread 32 of the same block, at .cta; and its twin, a record two
// blocks share.
struct BlockRecord {
  unsigned long long bytes;
  int value[12];
  int status;
  int ready;
};
__device__ __forceinline__ void st_relaxed_cta(int* p, int v) {
  asm volatile("st.relaxed.cta.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ int ld_relaxed_cta(const int* p) {
  int v;
  asm volatile("ld.relaxed.cta.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
extern "C" __global__ void __launch_bounds__(64) own_block_record(BlockRecord* records, int* out) {
  BlockRecord* r = records + blockIdx.x;
  if (threadIdx.x == 0) {
    r->value[3] = 7;
    __threadfence_block();
    st_relaxed_cta(&r->ready, 1);
  } else if (threadIdx.x == 32) {
    while (ld_relaxed_cta(&r->ready) == 0) {
    }
    __threadfence_block();
    out[blockIdx.x] = r->value[3];
  }
}
extern "C" __global__ void __launch_bounds__(64) pair_block_record(BlockRecord* records, int* out) {
  BlockRecord* r = records + (blockIdx.x >> 1);
  if (threadIdx.x == 0 && (blockIdx.x & 1) == 0) {
    r->value[3] = 7;
    __threadfence_block();
    st_relaxed_cta(&r->ready, 1);
  } else if (threadIdx.x == 32 && (blockIdx.x & 1)) {
    while (ld_relaxed_cta(&r->ready) == 0) {
    }
    __threadfence_block();
    out[blockIdx.x] = r->value[3];
  }
}

// A peer's copy of the polled field raised through a pointer the walk lost
// (session 25, nvCOMP's snappy_transcode_kernel): the pointer kept in shared
// memory and replaced on some rounds; the twin reads the peer table directly.
struct PeerSlots {
  unsigned flags[16][8];
  float data[16][8][32];
};
extern "C" __global__ void stashed_peer_mirror(PeerSlots** peers, PeerSlots* self, int rank, int world,
                                               const float* in, float* out, int rounds) {
  __shared__ PeerSlots* stash[4][8];
  const int t = threadIdx.x & 31, w = threadIdx.x >> 5;
  if (t < world) stash[w][t] = peers[(rank + t) % world];
  __syncwarp();
  if (t >= world) return;
  PeerSlots* p = stash[w][t];
  for (int r = 0; r < rounds; ++r) {
    self->data[r & 15][rank][0] = in[r];
    __threadfence();
    st_relaxed(&p->flags[r & 15][rank], 1);
    while (ld_volatile(&self->flags[r & 15][t]) == 0) {
    }
    __threadfence();
    out[r * 8 + t] = p->data[r & 15][t][0];
    if (in[r] > 0.f) {
      stash[w][t] = peers[(rank + t + r) % world];
      __syncwarp(1u << t);
      p = stash[w][t];
    }
  }
}
extern "C" __global__ void direct_peer_mirror(PeerSlots** peers, PeerSlots* self, int rank, int world,
                                              const float* in, float* out, int rounds) {
  const int t = threadIdx.x & 31;
  if (t >= world) return;
  for (int r = 0; r < rounds; ++r) {
    PeerSlots* p = peers[(rank + t + r) % world];
    self->data[r & 15][rank][0] = in[r];
    __threadfence();
    st_relaxed(&p->flags[r & 15][rank], 1);
    while (ld_volatile(&self->flags[r & 15][t]) == 0) {
    }
    __threadfence();
    out[r * 8 + t] = p->data[r & 15][t][0];
  }
}
