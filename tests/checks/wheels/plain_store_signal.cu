// A plain store as the signal (issue 34): block 0 writes a table, __syncthreads(), thread 0 raises
// a flag with a plain st.global, and the other blocks, spinning with ld.acquire on that flag, read
// the table. The barrier orders the block's writes before thread 0's store at
// CTA scope only; the plain store releases nothing at .gpu scope: release-missing at the store.
// The fixed twin fences (__threadfence()) between the barrier and the store: silent.
// A third kernel stores a plain bookkeeping word (another field of the same structure) before a
// release-store signal: not a signal, silent.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ unsigned wait_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__global__ void broadcast_plain_flag(unsigned* flag, float* table, float* out, const float* __restrict__ in) {
  if (blockIdx.x == 0) {
    table[threadIdx.x] = in[threadIdx.x] * 2.0f;
    __syncthreads();
    if (threadIdx.x == 0) *flag = 1u;  // expect: release-missing
  } else {
    if (threadIdx.x == 0)
      while (wait_acquire(flag) == 0) {
      }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = table[threadIdx.x];
  }
}

__global__ void broadcast_fenced_flag(unsigned* flag, float* table, float* out, const float* __restrict__ in) {
  if (blockIdx.x == 0) {
    table[threadIdx.x] = in[threadIdx.x] * 2.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      *flag = 1u;
    }
  } else {
    if (threadIdx.x == 0)
      while (wait_acquire(flag) == 0) {
      }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = table[threadIdx.x];
  }
}

struct Board {
  unsigned posted;  // bookkeeping: how often block 0 posted
  unsigned flag;    // the word the other blocks poll
};

__global__ void broadcast_bookkeeping(Board* board, float* table, float* out, const float* __restrict__ in) {
  if (blockIdx.x == 0) {
    table[threadIdx.x] = in[threadIdx.x] * 2.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      board->posted = board->posted + 1u;
      asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(&board->flag), "r"(1u) : "memory");
    }
  } else {
    if (threadIdx.x == 0)
      while (wait_acquire(&board->flag) == 0) {
      }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = table[threadIdx.x];
  }
}
