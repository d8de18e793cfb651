// RUN: %fenceline check --verify --arch sm_90a %s
// barrier-reuse: hand-written grid barriers. Thread 0 of each block arrives on
// a global counter and waits for it to reach a fixed threshold. Such a barrier
// works once: the second use on the same counter passes at once. Reusable
// forms compare against something derived from their own arrival (a phase
// bit), a generation counter, or a target that grows with each use (an epoch).
// Every barrier here releases before arriving and acquires after waiting, so
// that only the reuse is under test.

// A fixed-threshold barrier: arrive, wait until every block arrived.
__device__ __forceinline__ void counter_arrive_wait(unsigned* count) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1u);
    while (*(volatile unsigned*)count < gridDim.x) {
    }
    __threadfence();
  }
  __syncthreads();
}

// Broken: two uses of the fixed-threshold barrier on one counter. Written out
// (not through the helper) so that each use is its own source line.
__global__ void fixed_threshold_twice(unsigned* count, float* a, float* b) {
  a[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1u);
    while (*(volatile unsigned*)count < gridDim.x) {
    }
    __threadfence();
  }
  __syncthreads();
  b[blockIdx.x * blockDim.x + threadIdx.x] = a[(blockIdx.x + 1) % gridDim.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1u);  // expect: barrier-reuse
    while (*(volatile unsigned*)count < gridDim.x) {
    }
    __threadfence();
  }
  __syncthreads();
  a[blockIdx.x * blockDim.x + threadIdx.x] = b[(blockIdx.x + 1) % gridDim.x * blockDim.x + threadIdx.x];
}

// Broken: a fixed-threshold barrier in a loop. Reported at the helper's
// atomicAdd; this helper is used by this kernel only.
__device__ __forceinline__ void counter_arrive_wait_loop(unsigned* count) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1u);  // expect: barrier-reuse
    while (*(volatile unsigned*)count < gridDim.x) {
    }
    __threadfence();
  }
  __syncthreads();
}
__global__ void fixed_threshold_helper_in_loop(unsigned* count, float* a, int steps) {
  for (int s = 0; s < steps; ++s) {
    a[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
    counter_arrive_wait_loop(count);
  }
}

// Broken: the "magic number" barrier. Block 0 adds 0x80000000 - (n - 1), the
// others 1; the waiters spin until the counter reaches 0x80000000 (nvcc turns
// `v < 0x80000000u` into a sign test). Used twice.
__global__ void sign_test_twice(unsigned* bar, float* a) {
  unsigned inc = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
  a[blockIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(bar, inc);
    while (*(volatile unsigned*)bar < 0x80000000u) {
    }
    __threadfence();
  }
  __syncthreads();
  a[blockIdx.x] += a[(blockIdx.x + 1) % gridDim.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(bar, inc);  // expect: barrier-reuse
    while (*(volatile unsigned*)bar < 0x80000000u) {
    }
    __threadfence();
  }
  __syncthreads();
  a[blockIdx.x] += a[(blockIdx.x + 2) % gridDim.x];
}

// Clean: the phase-bit barrier compares the polled value with its own
// arrival's return value, in a loop.
__device__ __forceinline__ void phase_bit_barrier(unsigned* bar) {
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned inc = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
    unsigned old;
    asm volatile("atom.add.release.gpu.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(bar), "r"(inc) : "memory");
    unsigned now;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(bar) : "memory");
    } while (((old ^ now) & 0x80000000u) == 0);
  }
  __syncthreads();
}
__global__ void phase_bit_in_loop(unsigned* bar, float* a, int steps) {
  for (int s = 0; s < steps; ++s) {
    a[blockIdx.x] += 1.0f;
    phase_bit_barrier(bar);
    a[blockIdx.x] += a[(blockIdx.x + 1) % gridDim.x];
    phase_bit_barrier(bar);
  }
}

// Clean: a generation counter. The last arriver resets the count and bumps
// the generation; the others wait for the generation to change.
__device__ __forceinline__ void generation_barrier(unsigned* count, unsigned* generation) {
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned gen = *(volatile unsigned*)generation;
    __threadfence();
    if (atomicAdd(count, 1u) == gridDim.x - 1) {
      *(volatile unsigned*)count = 0;
      __threadfence();
      atomicAdd(generation, 1u);
    } else {
      while (*(volatile unsigned*)generation == gen) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}
__global__ void generation_in_loop(unsigned* count, unsigned* generation, float* a, int steps) {
  for (int s = 0; s < steps; ++s) {
    a[blockIdx.x] += 1.0f;
    generation_barrier(count, generation);
  }
}

// Clean: an epoch target. The counter only grows; use k waits for k * n arrivals.
__global__ void epoch_target_in_loop(unsigned* count, float* a, int steps) {
  for (int s = 1; s <= steps; ++s) {
    a[blockIdx.x] += 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(count, 1u);
      while (*(volatile unsigned*)count < s * gridDim.x) {
      }
      __threadfence();
    }
    __syncthreads();
  }
}

// Clean: one use of the fixed-threshold barrier per launch (the host resets
// the counter between launches).
__global__ void fixed_threshold_once(unsigned* count, float* a) {
  a[blockIdx.x] = 1.0f;
  counter_arrive_wait(count);
  a[blockIdx.x] += a[(blockIdx.x + 1) % gridDim.x];
}

// Clean: two fixed-threshold barriers on two different counters.
__global__ void two_counters(unsigned* counts, float* a) {
  a[blockIdx.x] = 1.0f;
  counter_arrive_wait(&counts[0]);
  a[blockIdx.x] += a[(blockIdx.x + 1) % gridDim.x];
  counter_arrive_wait(&counts[1]);
  a[blockIdx.x] += a[(blockIdx.x + 2) % gridDim.x];
}
