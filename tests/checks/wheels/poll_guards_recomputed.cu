// Session 27, cuDSS's work-counter waits (factorize_v3_ker, factorize_v1_ker; docs/real-code.md):
// thread 0 polls a dependency count under `tid == 0 && need >= 1`, and a second word under
// `r > last && tid == 0`; after both, it fences under `tid == 0 && (r > last || need >= 1)`,
// computed again from the thread index read again. Every path that polls also fences: the
// tests on the way into each spin loop decide the fence's predicate, evaluated from its own
// definition (model/EdgeFacts.h). Main reported acquire-missing at both polls.
// Broken twin: the fence forgets the first wait's case (`tid == 0 && r > last` only), so a
// block that polls the count with r <= last reads without an acquire: acquire-missing stays.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

// The thread index read again at each use (as nvcc leaves it in large kernels).
__device__ __forceinline__ unsigned thread_x() {
  unsigned t;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(t));
  return t;
}
__device__ __forceinline__ void nap(unsigned ns) { asm volatile("nanosleep.u32 %0;" ::"r"(ns)); }
__device__ __forceinline__ int poll_count(const int* p) {
  int v;
  asm volatile("ld.volatile.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ int poll_pivot(const int* p) {
  int v;
  asm volatile("ld.volatile.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void mark_done(int* p) {
  asm volatile("st.relaxed.gpu.global.s32 [%0], -1;" ::"l"(p) : "memory");
}

// Block b waits for its dependencies (a count) and, past the first `last` stages, for its pivot
// block (a word set to -1), then adds its row of x into the next block's and publishes.
__global__ void poll_guards_recomputed(float* x, int* count, int* pivot, const int* need_of, const int* stage_of,
                                       int last) {
  const int b = blockIdx.x;
  const int need = need_of[b];
  const int r = stage_of[b];
  if (thread_x() == 0 && need >= 1) {
    unsigned ns = 0;
    while (poll_count(&count[b]) < need) {
      ns = ns < 512 ? ns + 64 : ns;
      nap(ns);
    }
  }
  if (r > last && thread_x() == 0) {
    unsigned ns = 0;
    while (poll_pivot(&pivot[r]) != -1) {
      ns = ns < 512 ? ns + 64 : ns;
      nap(ns);
    }
  }
  if (thread_x() == 0 && (r > last || need >= 1)) __threadfence();
  __syncthreads();
  const float v = x[b * 128 + threadIdx.x];
  x[(b + 1) * 128 + threadIdx.x] += v;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(&count[b + 1], 1);
  } else if (threadIdx.x == 32) {
    __threadfence();
    mark_done(&pivot[b]);
  }
}

__device__ __forceinline__ int poll_count_twin(const int* p) {
  int v;
  asm volatile("ld.volatile.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ int poll_pivot_twin(const int* p) {
  int v;
  asm volatile("ld.volatile.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Broken: the fence covers the pivot wait only.
__global__ void poll_guards_fence_forgets_count(float* x, int* count, int* pivot, const int* need_of,
                                                const int* stage_of, int last) {
  const int b = blockIdx.x;
  const int need = need_of[b];
  const int r = stage_of[b];
  if (thread_x() == 0 && need >= 1) {
    unsigned ns = 0;
    while (poll_count_twin(&count[b]) < need) {
      ns = ns < 512 ? ns + 64 : ns;
      nap(ns);
    }
  }
  if (r > last && thread_x() == 0) {
    unsigned ns = 0;
    while (poll_pivot_twin(&pivot[r]) != -1) {
      ns = ns < 512 ? ns + 64 : ns;
      nap(ns);
    }
  }
  if (thread_x() == 0 && r > last) __threadfence();
  __syncthreads();
  const float v = x[b * 128 + threadIdx.x];
  x[(b + 1) * 128 + threadIdx.x] += v;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(&count[b + 1], 1);
  } else if (threadIdx.x == 32) {
    __threadfence();
    mark_done(&pivot[b]);
  }
}
