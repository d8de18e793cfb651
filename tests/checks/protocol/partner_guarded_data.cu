// RUN: %fenceline check --verify --arch sm_90a %s
// acquire-missing and the partner model: the data a wait guards is memory
// that some write of the kernel may touch (through any pointer that may alias
// it, peer-table entries included) or memory written outside the kernel.
// Reads of objects no write of the kernel can touch (`const __restrict__`
// inputs, the pointer table itself) are not guarded: a wait followed only by
// such reads is an execution barrier (a sync-only rank barrier, a relaxed
// wait before an ordered hand-off) and needs no acquire.

constexpr int kMaxRanks = 8;

__device__ __forceinline__ void st_volatile(unsigned* p, unsigned v) {
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_volatile(const unsigned* p) {
  unsigned v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Pointer tables indexed by rank, as collective libraries pass them.
struct PeerTables {
  unsigned* flags[kMaxRanks];  // flags[p]: rank p's flag array, one word per (block, rank)
  float* buffers[kMaxRanks];   // buffers[p]: rank p's receive buffer
};

// The sync-only rank barrier: block b raises slot [b][rank] on every peer,
// then waits until every peer raised slot [b][p] of its own array.
__device__ __forceinline__ void rank_barrier(const PeerTables& t, unsigned epoch, int rank, int world) {
  if (threadIdx.x < world) {
    st_volatile(t.flags[threadIdx.x] + blockIdx.x * kMaxRanks + rank, epoch);
    while (ld_volatile(t.flags[rank] + blockIdx.x * kMaxRanks + threadIdx.x) != epoch) {
    }
  }
  __syncthreads();
}

// Broken: after the barrier the block reads what the peers pushed into its
// own receive buffer (written by this kernel on the peers, through the same
// table): guarded data, no acquire.
__global__ void push_then_barrier_then_read(PeerTables t, const float* __restrict__ in, float* out,
                                            unsigned epoch, int rank, int world, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int p = 0; p < world; ++p) t.buffers[p][rank * n + i] = in[i];
  __syncthreads();
  if (threadIdx.x < world) {
    // The pushes are unreleased as well (release-missing's part).
    st_volatile(t.flags[threadIdx.x] + blockIdx.x * kMaxRanks + rank, epoch);  // expect: release-missing
    while (ld_volatile(t.flags[rank] + blockIdx.x * kMaxRanks + threadIdx.x) != epoch) {  // expect: acquire-missing
    }
  }
  __syncthreads();
  float sum = 0.0f;
  for (int p = 0; p < world; ++p) sum += t.buffers[rank][p * n + i];
  out[i] = sum;
}

// Fixed: the same barrier as an execution barrier before the peers are
// written ("every rank is ready to receive"): after the wait the block reads
// only its `const __restrict__` input and the pointer table, which no write of
// the kernel touches.
__global__ void barrier_then_push(PeerTables t, const float* __restrict__ in, unsigned epoch, int rank,
                                  int world, int n) {
  rank_barrier(t, epoch, rank, world);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int p = 0; p < world; ++p) t.buffers[p][rank * n + i] = in[i];
}

// A semaphore held in a struct, as device-side communicators keep them: the
// flag and the payload it announces live side by side.
struct Mailbox {
  unsigned ready;
  unsigned pad[31];
  float payload[256];
};

// Broken: block 0 fills the mailbox and raises `ready` (with a release, so
// that only the waiter is under test); the others spin on a volatile load and
// read the payload.
__global__ void mailbox_volatile_wait(Mailbox* box, float* out) {
  if (blockIdx.x == 0) {
    box->payload[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      *(volatile unsigned*)&box->ready = 1;
    }
  } else {
    if (threadIdx.x == 0)
      while (*(volatile unsigned*)&box->ready == 0) {  // expect: acquire-missing
      }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = box->payload[threadIdx.x];
  }
}

// Fixed: an ordered hand-off: block b waits (relaxed) for block b-1's turn
// token, then reads only its `const __restrict__` input and passes the token
// on. No data crosses the wait, so no acquire is needed.
__global__ void turn_token(unsigned* turn, const float* __restrict__ in, float* out) {
  if (threadIdx.x == 0)
    while (*(volatile unsigned*)turn != blockIdx.x) {
    }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 2.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    *(volatile unsigned*)turn = blockIdx.x + 1;
  }
}
