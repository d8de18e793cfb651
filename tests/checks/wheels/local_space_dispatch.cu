// Shape F5 of the wheels sample (docs/real-code.md, "The wheels sample, second draw"): an atomic
// flag access that dispatches on the address's state space, as libcu++'s atomic_ref does. When
// `isspacep.local` says the flag is in the thread's local memory, the flag is read (and written)
// with plain byte accesses and a nanosleep; otherwise with an acquire load (a release store) at
// .sys scope. The flags are the ranks' entries of a pointer table. No other thread or GPU can
// write a thread's local memory, so the byte loads of the local branch observe no signal: they
// are not polls, and the acquire of the other branch orders the reads after the wait. Silent.
// The twin's non-local branch polls with a relaxed load: the wait on another rank's flag has no
// acquire before the data it guards is read: acquire-missing.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

struct Exchange {
  unsigned* flags[8];   // flags[r]: rank r's flag array, one word per peer
  float* buffers[8];    // buffers[r]: rank r's receive buffer
  int rank, world;
  unsigned round;
};

// 1 when the generic address is in the thread's local memory (opaque to the compiler).
__device__ __forceinline__ bool is_local(const void* p) {
  unsigned r;
  asm volatile("{\n\t.reg .pred p;\n\tisspacep.local p, %1;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(r) : "l"(p));
  return r != 0;
}

// The pointer as a generic address the compiler knows nothing about (a library's dispatch
// receives it from elsewhere).
template <class T>
__device__ __forceinline__ T* opaque(T* p) {
  T* q;
  asm volatile("mov.b64 %0, %1;" : "=l"(q) : "l"(p));
  return q;
}

__device__ __forceinline__ void nap() { asm volatile("nanosleep.u32 0;" ::: "memory"); }

__device__ __forceinline__ void store_flag(unsigned* flag_, unsigned v) {
  unsigned* flag = opaque(flag_);
  if (is_local(flag)) {
    unsigned char* b = reinterpret_cast<unsigned char*>(flag);
    b[0] = v & 0xff;
    b[1] = (v >> 8) & 0xff;
    b[2] = (v >> 16) & 0xff;
    b[3] = v >> 24;
  } else {
    asm volatile("st.release.sys.u32 [%0], %1;" ::"l"(flag), "r"(v) : "memory");
  }
}

__device__ __forceinline__ unsigned load_flag_acquire(const unsigned* flag_) {
  const unsigned* flag = opaque(flag_);
  if (is_local(flag)) {
    const unsigned char* b = reinterpret_cast<const unsigned char*>(flag);
    unsigned v = b[0] | (b[1] << 8) | (b[2] << 16) | (unsigned(b[3]) << 24);
    nap();
    return v;
  }
  unsigned v;
  asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  return v;
}

__device__ __forceinline__ unsigned load_flag_relaxed(const unsigned* flag_) {
  const unsigned* flag = opaque(flag_);
  if (is_local(flag)) {
    const unsigned char* b = reinterpret_cast<const unsigned char*>(flag);
    unsigned v = b[0] | (b[1] << 8) | (b[2] << 16) | (unsigned(b[3]) << 24);
    nap();
    return v;
  }
  unsigned v;
  asm volatile("ld.relaxed.sys.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  return v;
}

// Safe: the local branch touches the thread's own memory; the other branch acquires.
__global__ void exchange_space_dispatch(const Exchange x, float* out) {
  const int i = threadIdx.x;
  unsigned* flags[8];  // the tables, copied into the thread's local memory
  float* buffers[8];
  for (int k = 0; k < 8; ++k) flags[k] = x.flags[k], buffers[k] = x.buffers[k];
  for (int p = 0; p < x.world; ++p) buffers[p][x.rank * blockDim.x + i] = static_cast<float>(i + x.rank);
  __syncthreads();
  if (i < x.world) store_flag(&flags[i][x.rank], x.round);
  if (i < x.world)
    while (load_flag_acquire(&flags[x.rank][i]) < x.round) {
    }
  __syncthreads();
  float sum = 0.0f;
  for (int p = 0; p < x.world; ++p) sum += buffers[x.rank][p * blockDim.x + i];
  out[i] = sum;
}

// Broken twin: the non-local branch polls with a relaxed load.
__global__ void exchange_space_dispatch_relaxed(const Exchange x, float* out) {
  const int i = threadIdx.x;
  unsigned* flags[8];  // the tables, copied into the thread's local memory
  float* buffers[8];
  for (int k = 0; k < 8; ++k) flags[k] = x.flags[k], buffers[k] = x.buffers[k];
  for (int p = 0; p < x.world; ++p) buffers[p][x.rank * blockDim.x + i] = static_cast<float>(i + x.rank);
  __syncthreads();
  if (i < x.world) store_flag(&flags[i][x.rank], x.round);
  if (i < x.world)
    while (load_flag_relaxed(&flags[x.rank][i]) < x.round) {  // expect: acquire-missing
    }
  __syncthreads();
  float sum = 0.0f;
  for (int p = 0; p < x.world; ++p) sum += buffers[x.rank][p * blockDim.x + i];
  out[i] = sum;
}
