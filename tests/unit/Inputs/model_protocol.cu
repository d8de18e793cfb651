// Kernels for ModelProtocolTest.cpp: one shape per named fact of the protocol
// model (src/model/Protocol.h), compiled by nvcc like every unit input.

__device__ __forceinline__ unsigned ld_volatile(const unsigned* p) {
  unsigned v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_acquire_sys(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// isConsumingDecrement: arrivals added, waited for, then taken back.
__global__ void counter_taken_back(unsigned* count, unsigned peers) {
  atomicAdd(count, 1u);
  while (ld_volatile(count) < peers) {
  }
  atomicSub(count, peers);
}

// isFloatingPointData: a float atomicAdd next to a polled word is data.
__global__ void float_reduction(float* sum, unsigned* flag, float v) {
  atomicAdd(sum, v);
  while (ld_volatile(flag) == 0) {
  }
}

// opaqueCallMayFence: a call through a function pointer stays opaque.
__global__ void opaque_call(void (*hook)(), unsigned* flag, float* data, float* out) {
  while (ld_volatile(flag) == 0) {
  }
  hook();
  out[threadIdx.x] = data[threadIdx.x];
}

// readsImmutableInput / isGuardedRead: after a wait signalled in the kernel,
// a `const __restrict__` input is not guarded; a buffer the kernel writes is.
__global__ void restrict_input_after_wait(unsigned* flag, const float* __restrict__ in, float* buf, float* out) {
  if (blockIdx.x == 0) {
    buf[threadIdx.x] = 1.0f;
    __threadfence();
    if (threadIdx.x == 0) *(volatile unsigned*)flag = 1;
  } else {
    while (ld_volatile(flag) == 0) {
    }
    out[threadIdx.x] = in[threadIdx.x] + buf[threadIdx.x];
  }
}

// alias: a struct's fields at different offsets are different words; a
// pointer read from a table does not point into the table.
struct Sem {
  unsigned inbound;
  unsigned expected;
};
__global__ void struct_fields(Sem* sem, unsigned* const* table, int rank) {
  atomicAdd(&sem->expected, 1u);
  while (ld_volatile(&sem->inbound) == 0) {
  }
  *table[rank] = 1;
}

// isEndOfKernelWait and requiredScope: a waiter's own .sys acquire is not
// evidence of an off-GPU partner.
__global__ void final_barrier(unsigned* count, float* out) {
  out[blockIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(count, 1u);
    while (ld_acquire_sys(count) < gridDim.x) {
    }
  }
}

// isPolledWordReset: a 0 stored to a count the waiters poll for gridDim.x
// releases no waiter (not a signal); an unlock (0 stored to a lock the
// compare-and-swap spin leaves on 0) is one.
__global__ void count_reset(unsigned* count) {
  if (threadIdx.x == 0) {
    atomicAdd(count, 1u);
    while (ld_volatile(count) < gridDim.x) {
    }
    atomicExch(count, 0u);
  }
}
__global__ void lock_unlock(int* lock, float* data) {
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    data[0] += 1.0f;
    atomicExch(lock, 0);
  }
}
