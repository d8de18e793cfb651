// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --strict --verify --arch sm_90a %s
// acquire-missing with CUDA intrinsics: volatile pointers, atomicAdd polling,
// cuda::atomic_ref, __threadfence(), and the block-wide wait through
// __syncthreads(). One producer block publishes `data` and sets `flag`; the
// consumers spin on the flag and then read the data.
#include <cuda/atomic>

// Broken: volatile spin, then a plain read. ld.volatile is relaxed: nothing
// orders the data read after the flag observation.
__global__ void volatile_spin_no_fence(int* flag, const int* data, int* out) {
  while (*(volatile int*)flag == 0) {  // expect-strict: acquire-missing
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// Fixed: __threadfence() after the loop is a fence.sc.gpu on every exit path.
__global__ void volatile_spin_threadfence(int* flag, const int* data, int* out) {
  while (*(volatile int*)flag == 0) {
  }
  __threadfence();
  out[threadIdx.x] = data[threadIdx.x];
}

// Broken: polling with a relaxed atomic (atomicAdd(p, 0) is atom.add, relaxed).
__global__ void atomic_poll_no_fence(int* flag, const int* data, int* out) {
  while (atomicAdd(flag, 0) == 0) {  // expect-strict: acquire-missing
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// Broken: cuda::atomic_ref relaxed load in the loop.
__global__ void atomic_ref_relaxed(int* flag, const int* data, int* out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  while (f.load(cuda::memory_order_relaxed) == 0) {  // expect-strict: acquire-missing
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// Fixed: cuda::atomic_ref acquire load (ld.acquire.gpu).
__global__ void atomic_ref_acquire(int* flag, const int* data, int* out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  while (f.load(cuda::memory_order_acquire) == 0) {
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// Fixed: relaxed loop, then an acquire fence through libcu++.
__global__ void atomic_ref_relaxed_then_fence(int* flag, const int* data, int* out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  while (f.load(cuda::memory_order_relaxed) == 0) {
  }
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
  out[threadIdx.x] = data[threadIdx.x];
}

// Broken, block-wide: thread 0 waits, __syncthreads() hands over to the block,
// every thread reads. bar.sync is not an acquire at gpu scope.
__global__ void block_wait_no_fence(int* flag, const int* data, int* out) {
  if (threadIdx.x == 0) {
    while (*(volatile int*)flag == 0) {  // expect-strict: acquire-missing
    }
  }
  __syncthreads();
  out[threadIdx.x] = data[threadIdx.x];
}

// Fixed, block-wide: thread 0 fences after its wait, before __syncthreads().
__global__ void block_wait_fence_before_sync(int* flag, const int* data, int* out) {
  if (threadIdx.x == 0) {
    while (*(volatile int*)flag == 0) {
    }
    __threadfence();
  }
  __syncthreads();
  out[threadIdx.x] = data[threadIdx.x];
}

// Fixed, block-wide: every thread fences after __syncthreads().
__global__ void block_wait_fence_after_sync(int* flag, const int* data, int* out) {
  if (threadIdx.x == 0) {
    while (*(volatile int*)flag == 0) {
    }
  }
  __syncthreads();
  __threadfence();
  out[threadIdx.x] = data[threadIdx.x];
}

// Clean: a spin loop with nothing read after it (a pure wait before writing).
__global__ void wait_then_write_only(int* flag, int* out) {
  while (*(volatile int*)flag == 0) {
  }
  out[threadIdx.x] = 1;
}

// Clean: not a spin loop. A compare-and-swap update loop (atomic float max)
// compares the CAS result with the previous iteration's value.
__global__ void cas_update_loop(float* maximum, const float* values, float* out) {
  float v = values[blockIdx.x * blockDim.x + threadIdx.x];
  int* address = (int*)maximum;
  int old = *address, assumed;
  do {
    assumed = old;
    old = atomicCAS(address, assumed, __float_as_int(fmaxf(v, __int_as_float(assumed))));
  } while (assumed != old);
  out[threadIdx.x] = values[threadIdx.x + 1];
}

// Clean: not a spin loop. A work queue hands out indices with atomicAdd and the
// body writes results.
__global__ void work_queue(int* next, const int* in, int* out, int n) {
  while (true) {
    int i = atomicAdd(next, 1);
    if (i >= n) break;
    out[i] = in[i] * 2;
  }
  out[n] = in[0];
}

// Clean: a fenced wait, then a `const __restrict__` input that nothing in the
// kernel writes (read-only for the whole launch: ld.global.nc is fine).
__global__ void fenced_wait_then_readonly_input(int* flag, const int* __restrict__ input, int* out) {
  while (*(volatile int*)flag == 0) {
  }
  __threadfence();
  out[threadIdx.x] = input[threadIdx.x];
}
