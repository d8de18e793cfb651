// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --strict --verify --arch sm_90a %s
// The partner model on a collective whose pointers live in tables inside one
// by-value parameter struct, in the shape of FlashInfer's PCIe IPC all-gather
// and reduce-scatter (comm/pcie_ipc_*.cuh): per-rank signal pages and two
// staging slots, the slot chosen per call from a word of this rank's signal
// page. Each rank pushes its shard into every peer's staging slot with
// volatile stores (after copying it into its own output), then runs a flag barrier with the peers (release store of
// the peer's flag, acquire poll of its own), then reads what the peers pushed.
// nvcc reads the tables through the parameter's address (`mov.b64 %rd,
// param; ld.param.u64 [%rd+72]`), picks the slot's table with `selp` or a
// branch, and indexes it by (rank + pass) % 8 in a loop: the staging pointer
// is one of the slot tables' sixteen fields, never the signal page the
// barrier polls, so the payload stores are data, not signals; only the flag
// store of the barrier is a signal, and it must release them.

struct CollectiveParams {
  unsigned long long signals[8];   // rank r's signal page (flags, call epoch)
  unsigned long long staging0[8];  // rank r's staging buffer, slot 0
  unsigned long long staging1[8];  // ... slot 1
  const uint4* input;
  uint4* output;
  long long packs;                 // 16-byte packs per rank's shard
  unsigned flag_base;              // first flag word in a signal page
};

__device__ __forceinline__ unsigned* signal_page(const CollectiveParams& p, int rank) {
  return reinterpret_cast<unsigned*>(p.signals[rank]);
}
__device__ __forceinline__ uint4* staging(const CollectiveParams& p, unsigned slot, int rank) {
  return reinterpret_cast<uint4*>(slot == 0 ? p.staging0[rank] : p.staging1[rank]);
}
__device__ __forceinline__ void store_volatile(uint4* at, uint4 v) {
  asm volatile("st.volatile.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(at), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w)
               : "memory");
}
__device__ __forceinline__ uint4 load_volatile(const uint4* at) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(at)
               : "memory");
  return v;
}
__device__ __forceinline__ unsigned load_acquire_sys(const unsigned* at) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(at) : "memory");
  return v;
}

// The call's slot: the low bit of this rank's epoch word, read by thread 0.
template <int Rank>
__device__ __forceinline__ unsigned select_slot(const CollectiveParams& p) {
  __shared__ unsigned slot;
  if (threadIdx.x == 0) slot = *reinterpret_cast<volatile unsigned*>(signal_page(p, Rank)) & 1u;
  __syncthreads();
  return slot;
}

// Raise this rank's flag on every peer, wait for every peer's flag here.
template <int Rank, bool Release>
__device__ __forceinline__ void rank_barrier(const CollectiveParams& p, unsigned generation) {
  __syncthreads();
  const int peer = threadIdx.x;
  if (peer < 8 && peer != Rank) {
    unsigned* flag = signal_page(p, peer) + p.flag_base + 8 * blockIdx.x + Rank;
    if (Release)
      asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(flag), "r"(generation) : "memory");
    else
      asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(flag), "r"(generation) : "memory");  // expect-strict: release-missing
    const unsigned* mine = signal_page(p, Rank) + p.flag_base + 8 * blockIdx.x + peer;
    while (load_acquire_sys(mine) < generation) {
    }
  }
  __syncthreads();
}

template <int Rank, bool Release>
__global__ void push_then_barrier(const __grid_constant__ CollectiveParams p, unsigned generation) {
  const unsigned slot = select_slot<Rank>(p);
  const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const long long stride = gridDim.x * (long long)blockDim.x;
  for (long long i = first; i < p.packs; i += stride) p.output[Rank * p.packs + i] = p.input[i];
#pragma unroll 1
  for (int pass = 1; pass < 8; ++pass) {
    const int to = (Rank + pass) % 8;
    uint4* slot_of_peer = staging(p, slot, to) + Rank * p.packs;
    for (long long i = first; i < p.packs; i += stride) store_volatile(slot_of_peer + i, p.input[i]);
  }
  rank_barrier<Rank, Release>(p, generation);
  const uint4* mine = staging(p, slot, Rank);
  for (long long i = first; i < p.packs; i += stride)
    for (int from = 0; from < 8; ++from)
      if (from != Rank) p.output[from * p.packs + i] = load_volatile(mine + from * p.packs + i);
}

template __global__ void push_then_barrier<0, true>(const __grid_constant__ CollectiveParams, unsigned);
template __global__ void push_then_barrier<0, false>(const __grid_constant__ CollectiveParams, unsigned);
