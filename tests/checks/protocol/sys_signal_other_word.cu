// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --verify --strict --arch sm_90a %s
// A .sys signal is evidence of an off-GPU partner for the word it raises, not
// for every word of its buffer. One allocation (a symmetric buffer mapped on
// every rank) holds a rank-local grid-barrier counter beside the flags the
// peers raise: the counter's .gpu release and acquire are right. When the
// analysis cannot tell the .sys signal's word from the counter's (the peer's
// copy is at a loaded per-rank offset) the partner link is undecided: strict
// tier. A .sys signal on the polled word itself decides it.

__device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_acquire_sys(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void red_release_gpu(unsigned* p, unsigned v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void red_release_sys(unsigned* p, unsigned v) {
  asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Fixed: bytes [0, 4) of the buffer are this rank's grid-barrier counter;
// bytes [4096, 4096 + 4 * world) the cross-rank arrival flags, raised at .sys
// in every peer's copy (base + offsets[peer]) and polled at .sys here.
__global__ void symmetric_buffer_local_counter(char* sym, const long long* offsets, float* data, float* out,
                                               int rank, int world) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = 1.0f;
  __syncthreads();
  unsigned* counter = reinterpret_cast<unsigned*>(sym);
  if (threadIdx.x == 0) {
    red_release_gpu(counter, 1);  // expect-strict: scope-too-narrow
    while (ld_acquire_gpu(counter) < gridDim.x) {  // expect-strict: scope-too-narrow
    }
  }
  __syncthreads();
  out[i] = data[(i + blockDim.x) % (gridDim.x * blockDim.x)];
  if (blockIdx.x == 0 && threadIdx.x < world) {
    unsigned* peer_flag = reinterpret_cast<unsigned*>(sym + offsets[threadIdx.x] + 4096 + 4 * rank);
    red_release_sys(peer_flag, 1);
    while (ld_acquire_sys(reinterpret_cast<unsigned*>(sym + 4096 + 4 * threadIdx.x)) == 0) {
    }
  }
}

// Broken: the same buffer, and the .sys signal raises the very word the
// other blocks poll at .gpu: the partner is off the GPU, decided.
__global__ void symmetric_buffer_sys_word_gpu_acquire(char* sym, float* data, float* out) {
  unsigned* flag = reinterpret_cast<unsigned*>(sym + 8);
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) red_release_sys(flag, 1);
  } else {
    if (threadIdx.x == 0)
      while (ld_acquire_gpu(flag) == 0) {  // expect: scope-too-narrow
      }
    __syncthreads();
    out[threadIdx.x] = data[threadIdx.x];
  }
}
