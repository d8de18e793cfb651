// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --verify --strict --arch sm_90a %s
// A read on the other outcome of a grid-uniform condition than the poll is
// not guarded by it: a kernel parameter selects one of two start barriers
// (a volatile one when rows are unaligned, an acquiring one when they are
// aligned), and the aligned mode's peer reads never follow the volatile
// wait in a launch. When the reads follow the volatile wait in the same
// mode, the missing acquire is real.

__device__ __forceinline__ unsigned ld_volatile(const unsigned* p) {
  unsigned v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_acquire_sys(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release_sys(unsigned* p, unsigned v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

struct Peers {
  float* data[8];
  unsigned* flags[8];
};

// Fixed: the volatile barrier only in the unaligned mode, whose copy reads
// this rank's own input; the aligned mode acquires before reading the peers.
__global__ void start_barrier_by_mode(Peers peers, const float* __restrict__ in, float* out, int rank, int world, bool aligned) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int p = 0; p < world; ++p) peers.data[p][rank * 4096 + i] = in[i];
  __syncthreads();
  if (threadIdx.x < world) {
    st_release_sys(peers.flags[threadIdx.x] + rank, 1);
    if (!aligned) {
      while (ld_volatile(peers.flags[rank] + threadIdx.x) == 0) {
      }
    } else {
      while (ld_acquire_sys(peers.flags[rank] + threadIdx.x) == 0) {
      }
    }
  }
  __syncthreads();
  if (aligned) {
    for (int p = 0; p < world; ++p) out[p * 4096 + i] = peers.data[rank][p * 4096 + i];
  } else {
    out[i] = in[i];
  }
}

// Broken: the same volatile barrier, and the same (unaligned) mode reads what the peers wrote.
__global__ void start_barrier_same_mode(Peers peers, const float* __restrict__ in, float* out, int rank, int world, bool aligned) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int p = 0; p < world; ++p) peers.data[p][rank * 4096 + i] = in[i];
  __syncthreads();
  if (threadIdx.x < world) {
    st_release_sys(peers.flags[threadIdx.x] + rank, 1);
    if (!aligned) {
      while (ld_volatile(peers.flags[rank] + threadIdx.x) == 0) {  // expect: acquire-missing
      }
    } else {
      while (ld_acquire_sys(peers.flags[rank] + threadIdx.x) == 0) {
      }
    }
  }
  __syncthreads();
  if (!aligned) {
    for (int p = 0; p < world; ++p) out[p * 4096 + i] = peers.data[rank][p * 4096 + i];
  } else {
    out[i] = in[i];
  }
}
