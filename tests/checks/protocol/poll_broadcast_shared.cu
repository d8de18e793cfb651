// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --strict --verify --arch sm_90a %s
// A poll whose value reaches the loop's exit through shared memory: thread 0
// reads the flag, stores what it saw to a shared word, every thread meets at
// __syncthreads() and reads the word, and the whole block leaves the loop
// together. Triton compiles `while tl.atomic_add(flag, 0, sem=...) == 0` and
// volatile scalar loads to exactly this. The global read behind the shared
// word is the poll: it observes block 0's signal, so the hand-off's links are
// all decided, both ways (a relaxed poll is acquire-missing; a relaxed signal
// observed by an acquire poll of this shape is release-missing).

__device__ __forceinline__ int poll_once_relaxed(int* flag) {
  int v;
  asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ int poll_once_acquire(int* flag) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  return v;
}
__device__ __forceinline__ void signal_release(int* flag) {
  asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(flag), "r"(1) : "memory");
}
__device__ __forceinline__ void signal_relaxed(int* flag) {
  asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(flag), "r"(1) : "memory");
}

// Broken: thread 0 polls with a relaxed load and broadcasts what it saw.
__global__ void broadcast_relaxed_poll(int* flag, int* data, int* out) {
  __shared__ int seen;
  if (blockIdx.x == 0) {
    data[threadIdx.x] = threadIdx.x + 1;
    __syncthreads();
    if (threadIdx.x == 0) signal_release(flag);
    return;
  }
  do {
    __syncthreads();
    if (threadIdx.x == 0) seen = poll_once_relaxed(flag);
    __syncthreads();
  } while (seen == 0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Fixed: the same broadcast of an acquire poll; __syncthreads() carries the
// acquire to every reader.
__global__ void broadcast_acquire_poll(int* flag, int* data, int* out) {
  __shared__ int seen;
  if (blockIdx.x == 0) {
    data[threadIdx.x] = threadIdx.x + 1;
    __syncthreads();
    if (threadIdx.x == 0) signal_release(flag);
    return;
  }
  do {
    __syncthreads();
    if (threadIdx.x == 0) seen = poll_once_acquire(flag);
    __syncthreads();
  } while (seen == 0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Broken: a relaxed signal; the broadcast acquire poll observes it, so the
// partner's read is in the kernel.
__global__ void broadcast_relaxed_signal(int* flag, int* data, int* out) {
  __shared__ int seen;
  if (blockIdx.x == 0) {
    data[threadIdx.x] = threadIdx.x + 1;
    __syncthreads();
    if (threadIdx.x == 0) signal_relaxed(flag);  // expect: release-missing
    return;
  }
  do {
    __syncthreads();
    if (threadIdx.x == 0) seen = poll_once_acquire(flag);
    __syncthreads();
  } while (seen == 0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}
