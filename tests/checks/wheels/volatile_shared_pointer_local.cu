// A store through a pointer that the kernel keeps in its local memory (a
// `volatile` pointer variable: nvcc writes the address to the local depot once
// and reloads it before each use; at -O0 every variable lives there, reached
// through the depot's generic address %SP). The shape of a decompressor that
// hands each thread's 64-bit result to its block through a volatile pointer to
// its shared buffer: results to global memory, __syncthreads(), then
// st.volatile through the reloaded pointer. The value analysis follows the
// pointer through the slot (one store to it, the depot's address used only as
// the address of loads and stores: model/LocalSlots.cpp), so the store is to
// shared memory, which no thread outside the CTA and nothing off the GPU
// reads, and it is no signal: silent in both tiers. (A volatile store is no
// `.sys` signal either way: volatile_store_signal_scope.cu.)
//
// The broken twin keeps a pointer to a global flag word the same way and
// raises it with an explicit st.relaxed.sys after the block's results, with no
// release: release-missing (`sys-scope-signal`).
// RUN: %fenceline check --arch sm_90a --nvcc-flag=-Xcicc --nvcc-flag=-O0 --verify %s
// RUN: %fenceline check --strict --arch sm_90a --nvcc-flag=-Xcicc --nvcc-flag=-O0 --verify %s

__device__ __forceinline__ void store_relaxed_sys(unsigned* at, unsigned value) {
  asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(at), "r"(value) : "memory");
}

__device__ __forceinline__ unsigned load_acquire(const unsigned* at) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(at) : "memory");
  return v;
}

struct Chunk {
  const unsigned* ready;  // raised by the block that produced the chunk's input
};

__global__ void hand_results_through_local_pointer(float* results, const float* __restrict__ in,
                                                   const Chunk* chunks) {
  __shared__ unsigned long long slots[128];
  volatile unsigned long long* volatile slot = slots;
  while (load_acquire(chunks[blockIdx.x].ready) == 0) {
  }
  results[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 2.0f;
  __syncthreads();
  slot[threadIdx.x] = (unsigned long long)threadIdx.x << 32 | blockIdx.x;
}

__global__ void raise_flag_through_local_pointer(float* results, const float* __restrict__ in, unsigned* done) {
  unsigned* volatile flag = done;
  results[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 2.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    store_relaxed_sys(flag, 1u);  // expect: release-missing
  }
}
