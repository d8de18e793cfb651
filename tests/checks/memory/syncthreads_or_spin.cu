// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
// Issue 11, shape 6: a block-wide spin loop through bar.red
// (`while (__syncthreads_or(*flag == 0))`, and its __syncthreads_and and
// __syncthreads_count forms): bar.red writes the predicate (or count) that
// the loop exits on, so the loop is a spin on the volatile flag. Without a
// fence after it, the guarded data may be read stale: acquire-missing; with
// __threadfence() after the loop, silent.

__global__ void syncthreads_or_spin(const volatile int* flag, const float* data, float* out) {
  while (__syncthreads_or(*flag == 0)) {  // expect-strict: acquire-missing
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

__global__ void syncthreads_or_spin_fenced(const volatile int* flag, const float* data, float* out) {
  while (__syncthreads_or(*flag == 0)) {
  }
  __threadfence();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Only thread 0 polls; the others vote 0 (the libraries' "leader polls" form).
__global__ void syncthreads_or_leader_spin(const volatile int* flag, const float* data, float* out) {
  while (__syncthreads_or(threadIdx.x == 0 && *flag == 0)) {  // expect-strict: acquire-missing
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Fixed: only the leader observed the flag, so its fence must come before a
// barrier that the readers pass after it (a fence that each thread runs after
// the loop's last bar.red orders only the leader's own reads by the PTX model).
__global__ void syncthreads_or_leader_spin_fenced(const volatile int* flag, const float* data, float* out) {
  while (__syncthreads_or(threadIdx.x == 0 && *flag == 0)) {
  }
  __threadfence();
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Fixed: the leader polls with an acquire load; bar.red hands the outcome on.
__global__ void syncthreads_or_leader_spin_acquire(const int* flag, const float* data, float* out) {
  auto poll = [&] {
    int v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    return v;
  };
  while (__syncthreads_or(threadIdx.x == 0 && poll() == 0)) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Every thread polls its own flag; the block leaves when all saw it.
__global__ void syncthreads_and_spin(const volatile int* flags, const float* data, float* out) {
  while (!__syncthreads_and(flags[threadIdx.x] != 0)) {  // expect-strict: acquire-missing
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

__global__ void syncthreads_and_spin_fenced(const volatile int* flags, const float* data, float* out) {
  while (!__syncthreads_and(flags[threadIdx.x] != 0)) {
  }
  __threadfence();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

// Counting form: wait until at least `need` of the block's flags are raised.
__global__ void syncthreads_count_spin(const volatile int* flags, int need, const float* data, float* out) {
  while (__syncthreads_count(flags[threadIdx.x] != 0) < need) {  // expect-strict: acquire-missing
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}

__global__ void syncthreads_count_spin_fenced(const volatile int* flags, int need, const float* data, float* out) {
  while (__syncthreads_count(flags[threadIdx.x] != 0) < need) {
  }
  __threadfence();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}
