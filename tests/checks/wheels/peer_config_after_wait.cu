// Issue 34, NCCL's AlltoAll_LL (docs/real-code.md, "NCCL: two presumptions about peers"): each
// rank keeps a record of flag words (one per peer) and configuration fields (set up before the
// launch, read only); the ranks' records are reached through a table indexed by the rank. A rank
// raises its flag in each peer's record and waits until every peer raised its own. A parameter
// selects the launch's mode: in one, the rank first sends a value to each peer (a store through a
// table of the ranks' receive buffers, then a system fence) and reads nothing after the wait; in
// the other it sends nothing and reads a configuration field of the peer's record after the
// wait. The poll is relaxed, with no acquire after it; but in the mode that reads, no write of
// this kernel, on any rank, may be what the read returns: the configuration was written before
// the launch, and the flag publishes nothing there. Silent in the default tier; in the strict tier
// a note whose data link is `peer-before-launch` (whether a flag must order what a peer wrote
// before its launch is disputed: vLLM's start barrier). Main presumed the peer wrote it before
// raising the flag (`peer-memory`) and warned.
// The twin sends in both modes and reads the received value in the second: a write of the kernel
// may be the data (the analysis cannot tell the two tables' buffers apart), and the presumption
// holds: acquire-missing.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Box {
  unsigned flag[8];  // flag[p]: raised by peer p
  unsigned mask;     // configuration, written by the host
  float scale;
};

__device__ __forceinline__ void st_relaxed_sys(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// One copy of the poll per kernel: each carries its kernel's expectation.
__device__ __forceinline__ unsigned ld_relaxed_sys_config(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing
  return v;
}
__device__ __forceinline__ unsigned ld_relaxed_sys_value(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}

// Safe: the mode that reads after the wait reads only the peer's configuration. boxes[r]: rank
// r's record; inbox[r]: rank r's receive buffer.
__global__ void config_after_peer_wait(Box** boxes, float** inbox, float* out, int rank, int world,
                                       unsigned round, int send, float v) {
  const int i = threadIdx.x;
  if (i < world) {
    if (send) {
      inbox[i][rank] = v;
      __threadfence_system();
    }
    st_relaxed_sys(&boxes[i]->flag[rank], round);
    while (ld_relaxed_sys_config(&boxes[rank]->flag[i]) < round) {
    }
    if (!send) out[blockIdx.x * 8 + i] = boxes[i]->scale * static_cast<float>(boxes[i]->mask);
  }
}

// Broken twin: every launch sends; the second mode reads what the peers sent (inbox[r] and
// outbox[r] are rank r's receive buffer, in two tables), without acquire.
__global__ void value_after_peer_wait(Box** boxes, float** outbox, float** inbox, float* out, int rank,
                                      int world, unsigned round, int send, float v) {
  const int i = threadIdx.x;
  if (i < world) {
    outbox[i][rank] = v;
    __threadfence_system();
    st_relaxed_sys(&boxes[i]->flag[rank], round);
    while (ld_relaxed_sys_value(&boxes[rank]->flag[i]) < round) {
    }
    if (!send) out[blockIdx.x * 8 + i] = inbox[rank][i] * boxes[i]->scale;
  }
}
