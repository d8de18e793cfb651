// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --strict --verify --arch sm_90a %s
// The partner model on a communication library's device state, in the shape
// of NVSHMEM's dissemination barrier (non_abi/device/coll/barrier.cuh): the
// library keeps its state in one __constant__ struct; the team's epoch
// counter, the flags the peers raise and the team table are pointers read
// from different fields of it, and a peer's copy of a flag is reached by
// translating a local address through a table of peer heap bases.
//  - Two pointers read from different fields of a __constant__ struct are
//    different objects: the epoch counter (`sync_counter`) that the barrier's
//    leader bumps after the wait is not the polled flag (`psync`), so it is
//    no signal and publishes nothing.
//  - The data a wait guards is what its partner (this kernel on the peers)
//    wrote before raising the flag: after a sync-only barrier (nothing
//    written before the flags) the reads of team state and peer tables are
//    not guarded; after put + barrier the reads of the receive buffer are.

struct Team {
  int my_pe;
  int size;
  int team_idx;
};

struct DeviceState {
  Team** team_pool;              // team_pool[t]: team t
  long* sync_counter;            // sync_counter[2 * t]: team t's epoch
  long* psync_pool;              // psync_pool[64 * t + pe]: the flag peer pe raises
  char* const* peer_heap_base;   // peer_heap_base[pe]: pe's heap, mapped here
  char* heap_base;               // this PE's heap
  long* block_flags[8];          // one flag per block (the broken twin below)
};

__constant__ DeviceState state;

// A local heap address as peer `pe` maps it.
__device__ __forceinline__ volatile long* on_peer(volatile long* local, int pe) {
  return reinterpret_cast<volatile long*>(state.peer_heap_base[pe] +
                                          (reinterpret_cast<volatile char*>(local) - state.heap_base));
}

// The barrier of the fixed kernels: raise our flag on the peer `shift` ahead
// (after a fence that releases what we wrote), wait for the peer `shift`
// behind, then bump the epoch.
__device__ __forceinline__ void dissemination_sync(int team, bool acquire) {
  Team* t = state.team_pool[team];
  volatile long* counter = state.sync_counter + 2 * t->team_idx;
  volatile long* psync = state.psync_pool + 64 * t->team_idx;
  if (threadIdx.x == 0) {
    const int me = t->my_pe, size = t->size;
    long epoch = counter[0] + 1;
    for (int shift = 1; shift < size; shift <<= 1) {
      int to = (me + shift) % size;
      int from = (me - shift + size) % size;
      __threadfence_system();
      *on_peer(psync + me, to) = epoch;
      while (psync[from] < epoch) {
      }
    }
    counter[0] = epoch;
    if (acquire) __threadfence_system();
  }
  __syncthreads();
}

// Fixed: the peers put into `recv`, then the barrier (with a fence after the
// epoch bump), then the block reads what they put. The epoch bump is no
// signal: no wait polls `sync_counter`.
__global__ void put_then_barrier_then_read(const float* __restrict__ in, float* recv, float* out, int team,
                                           int n) {
  Team* t = state.team_pool[team];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int pe = 0; pe < t->size; ++pe) {
    volatile float* peer = reinterpret_cast<volatile float*>(
        state.peer_heap_base[pe] + (reinterpret_cast<char*>(recv + t->my_pe * n + i) - state.heap_base));
    *peer = in[i];
  }
  dissemination_sync(team, /*acquire=*/true);
  float sum = 0.0f;
  for (int pe = 0; pe < t->size; ++pe) sum += recv[pe * n + i];
  out[i] = sum;
}

// Fixed: sync-only (NVSHMEM's sync_all: execution only): every PE is ready to
// receive, then the block pushes. After the wait it reads team state, the
// peer table and its `const __restrict__` input: none of it written by the
// peers before their flags.
__global__ void sync_then_push(const float* __restrict__ in, float* recv, int team, int n) {
  dissemination_sync(team, /*acquire=*/false);
  Team* t = state.team_pool[team];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int pe = 0; pe < t->size; ++pe) {
    volatile float* peer = reinterpret_cast<volatile float*>(
        state.peer_heap_base[pe] + (reinterpret_cast<char*>(recv + t->my_pe * n + i) - state.heap_base));
    *peer = in[i];
  }
}

// Broken: put, then the same barrier without the fence after the wait, then
// the read of what the peers put: guarded data, no acquire.
__global__ void put_then_sync_then_read(const float* __restrict__ in, float* recv, float* out, int team, int n) {
  Team* t = state.team_pool[team];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int pe = 0; pe < t->size; ++pe) {
    volatile float* peer = reinterpret_cast<volatile float*>(
        state.peer_heap_base[pe] + (reinterpret_cast<char*>(recv + t->my_pe * n + i) - state.heap_base));
    *peer = in[i];
  }
  volatile long* counter = state.sync_counter + 2 * t->team_idx;
  volatile long* psync = state.psync_pool + 64 * t->team_idx;
  if (threadIdx.x == 0) {
    const int me = t->my_pe, size = t->size;
    long epoch = counter[0] + 1;
    for (int shift = 1; shift < size; shift <<= 1) {
      int to = (me + shift) % size;
      int from = (me - shift + size) % size;
      __threadfence_system();
      *on_peer(psync + me, to) = epoch;
      while (psync[from] < epoch) {  // expect-strict: acquire-missing
      }
    }
    counter[0] = epoch;
  }
  __syncthreads();
  float sum = 0.0f;
  for (int pe = 0; pe < t->size; ++pe) sum += recv[pe * n + i];
  out[i] = sum;
}

// Broken: flags in a table of the same __constant__ struct, but chosen by a
// variable index (block b raises block b ^ 1's flag and waits on its own):
// two entries of one table are not two fields, they may be one flag. The
// data written before the raise is unreleased.
__global__ void constant_table_by_block(float* data, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    volatile long* peer = state.block_flags[blockIdx.x ^ 1];
    *peer = 1;  // expect: release-missing
    volatile long* mine = state.block_flags[blockIdx.x];
    while (*mine == 0) {
    }
    __threadfence_system();
  }
  __syncthreads();
  out[i] = data[(blockIdx.x ^ 1) * blockDim.x + threadIdx.x];
}
