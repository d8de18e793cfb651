// Shape 2 (signalling threads fence only themselves), mscclpp allreduce8:
// https://github.com/microsoft/mscclpp/pull/407 (merged).
// Every thread of a block writes its share of the data into the peers'
// buffers; then threads 0 .. nPeers-1 each signal one peer (a semaphore
// signal: a system-scope fence by that thread, then a relaxed increment of
// the peer's semaphore). Before the fix the signals were issued right after
// the writes: each signalling thread's fence orders its own writes only, and
// no barrier made the other threads' writes precede the signals. The fix
// "ensur[es] that signals are only issued after all threads in the block
// have issued their writes" (a __syncthreads() before the signals). Our
// kernel: a rank-indexed table of peer pointers, a fence-then-relaxed-add
// signal written with inline asm, and the peers' wait with an acquire load.
// Strict tier: the signal and the rule are decided, but the reader's link is
// not: the by-value table of peer pointers is copied to local memory, and the
// two entries (`scratch[p]` written, `scratch[rank]` read) are pointers loaded
// from that copy that the analysis does not relate (distinct-pointers).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

struct PeerTables {
  float* scratch[8];     // the peers' receive buffers (IPC-mapped)
  unsigned* inbound[8];  // the peers' semaphores, one slot per sender
};

__device__ __forceinline__ void signal_peer(unsigned* flag) {
  asm volatile("fence.sc.sys;" ::: "memory");
  asm volatile("red.relaxed.sys.global.add.u32 [%0], 1;" ::"l"(flag) : "memory");
}
__device__ __forceinline__ void wait_peer(unsigned* flag, unsigned expected) {
  unsigned v;
  do {
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v < expected);
}

template <bool kGather>
__device__ __forceinline__ void push_and_signal(PeerTables t, const float* in, float* out, int rank, int npeers,
                                                unsigned round) {
  const int n = blockDim.x;
  for (int p = 0; p < npeers; ++p)  // every thread writes its element to every peer
    t.scratch[p][rank * n + threadIdx.x] = in[threadIdx.x] * float(p + 1);
  if (kGather) __syncthreads();  // the fix
  if (threadIdx.x < npeers) signal_peer(&t.inbound[threadIdx.x][rank]);  // expect-strict: release-missing
  if (threadIdx.x < npeers) wait_peer(&t.inbound[rank][threadIdx.x], round);
  __syncthreads();
  float sum = 0.f;
  for (int p = 0; p < npeers; ++p) sum += t.scratch[rank][p * n + threadIdx.x];
  out[threadIdx.x] = sum;
}

__global__ void allreduce_signal_ungathered(PeerTables t, const float* in, float* out, int rank, int npeers,
                                            unsigned round) {
  push_and_signal<false>(t, in, out, rank, npeers, round);
}
__global__ void allreduce_signal_after_barrier(PeerTables t, const float* in, float* out, int rank, int npeers,
                                               unsigned round) {
  push_and_signal<true>(t, in, out, rank, npeers, round);
}
