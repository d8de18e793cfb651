// RUN: %fenceline check --verify --arch sm_90a %s
// barrier-init-race: a grid-scope counter initialized by one thread of one
// block in the launch whose other blocks update it. Nothing orders block 0's
// store before the others' arrivals. Clean forms: the host (or an earlier
// launch) initializes it; the last arriver resets it.

__device__ __forceinline__ void arrive_and_wait(unsigned* count) {
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

// Broken: block 0, thread 0 zeroes the counter that every block then increments.
__global__ void init_in_kernel(unsigned* count, float* a) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *count = 0;  // expect: barrier-init-race
  a[blockIdx.x] = 1.0f;
  arrive_and_wait(count);
  a[blockIdx.x] += a[(blockIdx.x + 1) % gridDim.x];
}

// Broken: the same with atomicExch and a __syncthreads() after it (which orders
// nothing for the other blocks).
__global__ void init_exch_in_kernel(unsigned* count, float* a) {
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicExch(count, 0u);  // expect: barrier-init-race
  __syncthreads();
  a[blockIdx.x] = 1.0f;
  arrive_and_wait(count);
  a[blockIdx.x] += a[(blockIdx.x + 1) % gridDim.x];
}

// Broken: a ticket counter (no wait) initialized in the kernel: the last block
// to finish, found with atomicInc's result, writes the total.
__global__ void ticket_init_in_kernel(unsigned* tickets, const float* partial, float* total) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *(volatile unsigned*)tickets = 0;  // expect: barrier-init-race
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    unsigned ticket = atomicAdd(tickets, 1u);
    if (ticket == gridDim.x - 1) {
      __threadfence();
      float sum = 0.0f;
      for (unsigned b = 0; b < gridDim.x; ++b) sum += partial[b];
      *total = sum;
    }
  }
}

// Clean: the host initializes the counter.
__global__ void host_initialized(unsigned* count, float* a) {
  a[blockIdx.x] = 1.0f;
  arrive_and_wait(count);
  a[blockIdx.x] += a[(blockIdx.x + 1) % gridDim.x];
}

// Clean: the last arriver resets the ticket counter for the next launch.
__global__ void last_arriver_resets(unsigned* tickets, const float* partial, float* total) {
  if (threadIdx.x == 0) {
    __threadfence();
    unsigned ticket = atomicAdd(tickets, 1u);
    if (ticket == gridDim.x - 1) {
      __threadfence();
      float sum = 0.0f;
      for (unsigned b = 0; b < gridDim.x; ++b) sum += partial[b];
      *total = sum;
      *tickets = 0;
    }
  }
}

// Clean: block 0 initializes a different word (its own output), not the counter.
__global__ void init_other_word(unsigned* count, unsigned* status, float* a) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *status = 0;
  a[blockIdx.x] = 1.0f;
  arrive_and_wait(count);
  a[blockIdx.x] += a[(blockIdx.x + 1) % gridDim.x];
}

// Clean: an initializing kernel, launched before the kernel that uses the counter.
__global__ void init_kernel(unsigned* count) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *count = 0;
}
