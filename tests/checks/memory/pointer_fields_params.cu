// RUN: %fenceline check --arch sm_90a --verify %s
// Issue 11, shape 5, the forms today's model already gets right (kept as
// regression tests for the memory-analysis rewrite): a mailbox struct passed
// by value (its pointer fields read with ld.param are distinct objects; the
// `expected` increment is no signal, a relaxed store to `inbound` is), and a
// peer-pointer table: rank r pushes into ptrs[peer] and raises flags[peer],
// then waits on flags[rank], raised by the peer on another GPU: .sys needed.
// The loaded-pointer forms are in pointer_fields_loaded.cu.

struct Mailbox {
  unsigned* inbound;   // raised by the producer block, polled by the others
  unsigned* expected;  // consumption counter, incremented, never polled
  float* payload;
};

__device__ __forceinline__ void wait_acquire_gpu(const unsigned* flag) {
  unsigned v;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v == 0);
}
__device__ __forceinline__ void st_release_gpu(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_relaxed_gpu(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_release_sys(unsigned* p, unsigned v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void wait_acquire_sys(const unsigned* flag) {
  unsigned v;
  do {
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v == 0);
}

// Clean: the mailbox passed by value (fields read with ld.param).
__global__ void mailbox_value_count_clean(Mailbox mb, float* out) {
  if (blockIdx.x == 0) {
    mb.payload[threadIdx.x] = 1.0f + threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) st_release_gpu(mb.inbound, 1);
    return;
  }
  wait_acquire_gpu(mb.inbound);
  out[blockIdx.x * blockDim.x + threadIdx.x] = mb.payload[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(mb.expected, 1u);
}

// Broken: by value, relaxed signal.
__global__ void mailbox_value_relaxed_signal(Mailbox mb, float* out) {
  if (blockIdx.x == 0) {
    mb.payload[threadIdx.x] = 1.0f + threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) st_relaxed_gpu(mb.inbound, 1);  // expect: release-missing
    return;
  }
  wait_acquire_gpu(mb.inbound);
  out[blockIdx.x * blockDim.x + threadIdx.x] = mb.payload[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(mb.expected, 1u);
}

// Peer table: rank r pushes its slice into ptrs[peer] and raises flags[peer];
// it waits on flags[rank] (raised by the peer). The signal goes to another GPU.
// Broken: gpu-scope release on a flag that another GPU polls.
__global__ void peer_table_gpu_release(float** ptrs, unsigned** flags, const float* in, float* out, int rank,
                                       int peer) {
  ptrs[peer][rank * 256 + threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) st_release_gpu(flags[peer], 1);  // expect: scope-too-narrow
  if (threadIdx.x == 0) wait_acquire_sys(flags[rank]);
  __syncthreads();
  out[threadIdx.x] = ptrs[rank][peer * 256 + threadIdx.x];
}

// Fixed: system-scope release.
__global__ void peer_table_sys_release(float** ptrs, unsigned** flags, const float* in, float* out, int rank,
                                       int peer) {
  ptrs[peer][rank * 256 + threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) st_release_sys(flags[peer], 1);
  if (threadIdx.x == 0) wait_acquire_sys(flags[rank]);
  __syncthreads();
  out[threadIdx.x] = ptrs[rank][peer * 256 + threadIdx.x];
}
