// RUN: %fenceline check --verify --arch sm_90a %s
// release-missing on flag hand-offs between blocks of one kernel: block 0
// writes data and raises a flag, the other blocks wait for the flag (with an
// acquire, so that only the producer side is under test) and read the data.
#include <cuda/atomic>

__device__ __forceinline__ void wait_acquire(const unsigned* flag, unsigned value) {
  unsigned v;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v != value);
}
__device__ __forceinline__ void st_relaxed_gpu(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_release_gpu(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned atom_add_release_gpu(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.add.release.gpu.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ void red_relaxed_gpu(unsigned* p, unsigned v) {
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Broken: a volatile flag store right after the data store.
__global__ void volatile_flag_no_fence(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    *(volatile unsigned*)flag = 1;  // expect: release-missing
  } else {
    wait_acquire(flag, 1);
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Fixed: __threadfence() between the data and the flag.
__global__ void volatile_flag_threadfence(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    __threadfence();
    *(volatile unsigned*)flag = 1;
  } else {
    wait_acquire(flag, 1);
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Broken: atomicAdd arrival (relaxed) after the data store.
__global__ void atomic_add_flag_no_fence(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    atomicAdd(flag, 1u);  // expect: release-missing
  } else {
    wait_acquire(flag, blockDim.x);
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Broken: st.relaxed.gpu signal.
__global__ void st_relaxed_flag(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    st_relaxed_gpu(flag, 1);  // expect: release-missing
  } else {
    wait_acquire(flag, 1);
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Broken: red.relaxed.gpu arrival.
__global__ void red_relaxed_flag(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    red_relaxed_gpu(flag, 1);  // expect: release-missing
  } else {
    wait_acquire(flag, blockDim.x);
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Fixed: st.release.gpu signal.
__global__ void st_release_flag(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    st_release_gpu(flag, 1);
  } else {
    wait_acquire(flag, 1);
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Fixed: atom.add.release.gpu arrival.
__global__ void atom_release_flag(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    atom_add_release_gpu(flag, 1);
  } else {
    wait_acquire(flag, blockDim.x);
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Fixed: cuda::atomic_ref release store.
__global__ void atomic_ref_release_flag(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
    f.store(1, cuda::memory_order_release);
  } else {
    wait_acquire(flag, 1);
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Broken: cuda::atomic_ref relaxed fetch_add arrival.
__global__ void atomic_ref_relaxed_arrival(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
    f.fetch_add(1, cuda::memory_order_relaxed);  // expect: release-missing
  } else {
    wait_acquire(flag, blockDim.x);
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Broken: a spin lock whose unlock (atomicExch) does not release the critical
// section's writes; the lock acquisition is followed by a fence.
__global__ void spin_lock_unlock_no_fence(int* lock, float* total, const float* in) {
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *total += in[blockIdx.x];
    atomicExch(lock, 0);  // expect: release-missing
  }
}

// Fixed: the same lock with a fence before the unlock.
__global__ void spin_lock_unlock_fenced(int* lock, float* total, const float* in) {
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *total += in[blockIdx.x];
    __threadfence();
    atomicExch(lock, 0);
  }
}

// Clean: atomics that are not signals (a histogram: nobody waits on the bins).
__global__ void histogram(const int* keys, unsigned* bins, float* out) {
  out[threadIdx.x] = 1.0f;
  atomicAdd(&bins[keys[threadIdx.x] & 255], 1u);
}
