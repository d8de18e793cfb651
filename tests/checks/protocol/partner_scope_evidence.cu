// RUN: %fenceline check --verify --arch sm_90a %s
// scope-too-narrow needs evidence that the partner runs outside this GPU:
// peer pointers (tables indexed by rank), .sys atomics or stores on the
// signalling side, host memory. A .sys acquire by the waiter alone is
// over-strong, not evidence. And one definition of "a release for this
// signal": a release store on the flag word followed by a relaxed RMW on it
// (a release sequence) is that signal's release for release-missing and
// scope-too-narrow alike.
#include <cuda/atomic>

__device__ __forceinline__ unsigned ld_acquire_sys(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void red_release_gpu(unsigned* p, unsigned v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void red_relaxed_sys(unsigned* p, unsigned v) {
  asm volatile("red.relaxed.sys.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_release_cta(unsigned* p, unsigned v) {
  asm volatile("st.release.cta.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_release_gpu(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void red_relaxed_gpu(unsigned* p, unsigned v) {
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Fixed: a grid barrier whose arrive releases at .gpu and whose waiter
// acquires at .sys (over-strong). Signal and wait are in this kernel on the
// same word and nothing points off the GPU: .gpu suffices on both sides.
__global__ void grid_flag_oversized_acquire(unsigned* count, float* data, float* out) {
  data[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    red_release_gpu(count, 1);
    while (ld_acquire_sys(count) < gridDim.x) {
    }
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x];
}

// Broken: the same barrier across GPUs: each rank arrives on every peer's
// counter through a table of peer pointers indexed by rank, at .gpu.
struct PeerCounters {
  unsigned* counters[8];
};
__global__ void peer_counter_gpu_release(PeerCounters peers, float* const* peer_data, float* out, int rank,
                                         int world) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int p = 0; p < world; ++p) peer_data[p][rank * 1024 + i] = 1.0f;
  __syncthreads();
  if (threadIdx.x < world) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*peers.counters[threadIdx.x]);
    c.fetch_add(1, cuda::memory_order_release);  // expect: scope-too-narrow
  }
  if (threadIdx.x == 0)
    while (ld_acquire_sys(peers.counters[rank]) < world * gridDim.x) {
    }
  __syncthreads();
  out[i] = peer_data[rank][i];
}

// Broken: the signalling side uses .sys atomics (a peer or the host is the
// partner); the waiter acquires at .gpu only.
__global__ void sys_signal_gpu_acquire(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 1.0f;
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0) red_relaxed_sys(flag, 1);
  } else {
    if (threadIdx.x == 0)
      while (ld_acquire_gpu(flag) == 0) {  // expect: scope-too-narrow
      }
    __syncthreads();
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Broken: a block-scope release store on the flag word, then the relaxed
// arrival. The release store heads the release sequence the arrival
// continues, so there is a release, at too narrow a scope: scope-too-narrow
// only (release-missing agrees that a release exists).
__global__ void cta_release_then_relaxed_add(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      st_release_cta(flag, 0);  // expect: scope-too-narrow
      red_relaxed_gpu(flag, 1);
    }
  } else {
    if (threadIdx.x == 0)
      while (ld_acquire_gpu(flag) == 0) {
      }
    __syncthreads();
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Fixed: the same at .gpu: the release store heads the release sequence; no
// finding from either check.
__global__ void gpu_release_then_relaxed_add(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      st_release_gpu(flag, 0);
      red_relaxed_gpu(flag, 1);
    }
  } else {
    if (threadIdx.x == 0)
      while (ld_acquire_gpu(flag) == 0) {
      }
    __syncthreads();
    out[threadIdx.x] = data[threadIdx.x];
  }
}
