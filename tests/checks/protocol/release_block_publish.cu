// RUN: %fenceline check --verify --arch sm_90a %s
// release-missing, block-wide publish: every thread of a block writes its part
// of a tile, __syncthreads() gathers the writes, thread 0 raises the block's
// flag. The partner block (blockIdx.x ^ 1) waits for the flag with an acquire
// and reads the tile. Three placements release the tile: every writer fences
// before __syncthreads(); thread 0 fences after __syncthreads(); thread 0's flag
// store is itself a release. A fence by thread 0 alone before
// __syncthreads() releases only thread 0's own writes.

__device__ __forceinline__ void wait_acquire(const unsigned* flag) {
  unsigned v;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v == 0);
}
__device__ __forceinline__ void consume(const unsigned* flags, const float* tile, float* out) {
  unsigned partner = blockIdx.x ^ 1u;
  if (threadIdx.x == 0) wait_acquire(&flags[partner]);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[partner * blockDim.x + threadIdx.x];
}

// Clean: every writer fences, then __syncthreads(), then thread 0 signals.
__global__ void every_writer_fences(unsigned* flags, float* tile, float* out) {
  tile[blockIdx.x * blockDim.x + threadIdx.x] = (float)threadIdx.x;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) *(volatile unsigned*)&flags[blockIdx.x] = 1;
  consume(flags, tile, out);
}

// Broken: only the signalling thread fences, before __syncthreads(). The other
// threads' tile writes are not released.
__global__ void only_signaller_fences_before_sync(unsigned* flags, float* tile, float* out) {
  tile[blockIdx.x * blockDim.x + threadIdx.x] = (float)threadIdx.x;
  if (threadIdx.x == 0) __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) *(volatile unsigned*)&flags[blockIdx.x] = 1;  // expect: release-missing
  consume(flags, tile, out);
}

// Broken: no fence at all; __syncthreads() is not a release at gpu scope.
__global__ void sync_only(unsigned* flags, float* tile, float* out) {
  tile[blockIdx.x * blockDim.x + threadIdx.x] = (float)threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) *(volatile unsigned*)&flags[blockIdx.x] = 1;  // expect: release-missing
  consume(flags, tile, out);
}

// Clean: the signaller fences after __syncthreads() (the cooperative-groups form).
__global__ void signaller_fences_after_sync(unsigned* flags, float* tile, float* out) {
  tile[blockIdx.x * blockDim.x + threadIdx.x] = (float)threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    *(volatile unsigned*)&flags[blockIdx.x] = 1;
  }
  consume(flags, tile, out);
}

// Clean: the signaller's flag store is a release, after __syncthreads().
__global__ void signaller_release_store_after_sync(unsigned* flags, float* tile, float* out) {
  tile[blockIdx.x * blockDim.x + threadIdx.x] = (float)threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(&flags[blockIdx.x]), "r"(1u) : "memory");
  consume(flags, tile, out);
}

// Clean: the signaller's arrival is an atom.add.release after __syncthreads().
__global__ void signaller_release_atomic_after_sync(unsigned* flags, float* tile, float* out) {
  tile[blockIdx.x * blockDim.x + threadIdx.x] = (float)threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("{ .reg .b32 old; atom.add.release.gpu.global.u32 old, [%0], 1; }" ::"l"(&flags[blockIdx.x])
                 : "memory");
  }
  consume(flags, tile, out);
}
