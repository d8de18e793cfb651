// Shape N1 of the NCCL sample (docs/real-code.md, "NCCL (issue 34)"): a rank publishes to its
// peers through a table of peer pointers (data, then a .sys release of the peer's flag), waits for
// its own flag (a relaxed poll, then an acquire fence), then reads a field of a descriptor reached through the same kind
// of table with ld.global.nc (__ldg). Non-coherent loads state that their bytes are not written
// while the kernel runs, and no write of the kernel touches that field: the descriptor is set up
// before the launch. Not a hazard; the "peer memory, written before the flag" presumption that
// decides the data link of a coherent read does not hold for ld.global.nc, so the finding is at
// most strict tier (data link undecided: nc-unwritten).
// The twin writes the descriptor field that it later reads with __ldg (another rank's copy of the
// kernel writes it through the same pointer before raising the flag): a non-coherent read of bytes
// written during the kernel, which no fence makes coherent: acquire-missing, default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Descriptor {
  int count;     // set by the host before the launch
  int stride;
  float* data;   // the rank's receive buffer
};

struct Params {
  Descriptor** desc;  // the ranks' descriptors (a table of peer pointers in global memory)
  unsigned** flags;   // the ranks' flags (likewise)
  float* out;
  int rank, peer, epoch;
};

__device__ __forceinline__ void signal_peer(unsigned* flag, unsigned value) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(flag), "r"(value) : "memory");
}
__device__ __forceinline__ unsigned poll_relaxed(const unsigned* flag) {
  unsigned v;
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");  // expect-strict: acquire-missing
  return v;
}
// The twin's own copy (a fix edits this helper alone).
__device__ __forceinline__ unsigned poll_relaxed_twin(const unsigned* flag) {
  unsigned v;
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ void fence_acquire_sys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

// Safe: the field read with __ldg is never written while the kernel runs.
__global__ void push_then_read_config(Params p) {
  const int i = threadIdx.x;
  Descriptor* peer = p.desc[p.peer];
  peer->data[i] = static_cast<float>(i + p.rank);
  __syncthreads();
  if (i == 0) signal_peer(p.flags[p.peer] + p.rank, p.epoch);
  if (i == 0) {
    while (poll_relaxed(p.flags[p.rank] + p.peer) != static_cast<unsigned>(p.epoch)) {}
    fence_acquire_sys();
  }
  __syncthreads();
  const Descriptor* mine = p.desc[p.rank];
  const int n = __ldg(&mine->count);
  p.out[i] = mine->data[i] * static_cast<float>(n);
}

// Broken twin: the kernel writes the descriptor's count through the peer pointer before its
// signal, and reads the same field with __ldg after its wait.
__global__ void push_count_then_ldg(Params p) {
  const int i = threadIdx.x;
  Descriptor* peer = p.desc[p.peer];
  peer->data[i] = static_cast<float>(i + p.rank);
  if (i == 0) peer->count = p.epoch;
  __syncthreads();
  if (i == 0) signal_peer(p.flags[p.peer] + p.rank, p.epoch);
  if (i == 0) {
    while (poll_relaxed_twin(p.flags[p.rank] + p.peer) != static_cast<unsigned>(p.epoch)) {}
    fence_acquire_sys();
  }
  __syncthreads();
  const int n = __ldg(&peer->count);
  p.out[i] = peer->data[i] * static_cast<float>(n);
}
