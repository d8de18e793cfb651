// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --strict --verify --arch sm_90a %s
// acquire-missing with every link of the hazard in the kernel (issue 29): block
// 0 writes `data` and raises `flag` with a release; the other blocks poll the
// flag and read `data`. The data write, the signal, the poll and the read are
// all located and decided, so a missing acquire is a default-tier warning. The
// same poll shapes without a producer in the kernel (acquire_intrinsics.cu)
// are strict tier: the partner is outside the kernel and what it wrote is not
// in the PTX.
#include <cuda/atomic>

__device__ __forceinline__ void publish(int* flag, int* data) {
  data[threadIdx.x] = 7 * threadIdx.x + 1;
  __syncthreads();
  if (threadIdx.x == 0) cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).store(1, cuda::memory_order_release);
}

// Broken: volatile spin, then a plain read of the data.
__global__ void producer_volatile_spin(int* flag, int* data, int* out) {
  if (blockIdx.x == 0) {
    publish(flag, data);
    return;
  }
  while (*(volatile int*)flag == 0) {  // expect: acquire-missing
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Broken: polling with a relaxed atomic (atomicAdd(p, 0)).
__global__ void producer_atomic_poll(int* flag, int* data, int* out) {
  if (blockIdx.x == 0) {
    publish(flag, data);
    return;
  }
  while (atomicAdd(flag, 0) == 0) {  // expect: acquire-missing
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Broken: cuda::atomic_ref relaxed load in the loop.
__global__ void producer_atomic_ref_relaxed(int* flag, int* data, int* out) {
  if (blockIdx.x == 0) {
    publish(flag, data);
    return;
  }
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  while (f.load(cuda::memory_order_relaxed) == 0) {  // expect: acquire-missing
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Broken, block-wide: thread 0 waits, __syncthreads() hands over, every thread reads.
__global__ void producer_block_wait(int* flag, int* data, int* out) {
  if (blockIdx.x == 0) {
    publish(flag, data);
    return;
  }
  if (threadIdx.x == 0) {
    while (*(volatile int*)flag == 0) {  // expect: acquire-missing
    }
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Fixed: an acquire load in the loop.
__global__ void producer_acquire_poll(int* flag, int* data, int* out) {
  if (blockIdx.x == 0) {
    publish(flag, data);
    return;
  }
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  while (f.load(cuda::memory_order_acquire) == 0) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Fixed, block-wide: thread 0 fences after its wait, before __syncthreads().
__global__ void producer_block_wait_fenced(int* flag, int* data, int* out) {
  if (blockIdx.x == 0) {
    publish(flag, data);
    return;
  }
  if (threadIdx.x == 0) {
    while (*(volatile int*)flag == 0) {
    }
    __threadfence();
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}
