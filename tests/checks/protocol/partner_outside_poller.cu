// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --strict --verify --arch sm_90a %s
// release-missing when the partner is outside the kernel: the host (through
// mapped memory) or a later kernel polls a completion flag the kernel raises
// after writing its results. Judged when the evidence is clear: data stores,
// then a volatile/relaxed store or a .sys atomic to one word of a flag
// parameter that no spin loop of the kernel polls.
#include <cuda/atomic>

// Broken for a host poller: the classic "done" flag: results, then a
// volatile flag store by thread 0 after __syncthreads(). A volatile store
// does not say that the host reads it (a later kernel needs no release;
// session 24, shape V): strict tier. The .sys twins below are warnings.
__global__ void done_flag_volatile(float* out, unsigned* done) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) *(volatile unsigned*)done = 1;  // expect-strict: release-missing
}

// Fixed: __threadfence_system() between the results and the flag.
__global__ void done_flag_fenced(float* out, unsigned* done) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    __threadfence_system();
    *(volatile unsigned*)done = 1;
  }
}

// Broken: a per-launch completion count the host polls, bumped with a
// relaxed system-scope atomic (atomicAdd_system) after the block's results.
__global__ void completion_count_relaxed(float* out, unsigned* completed) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 2.0f;
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd_system(completed, 1u);  // expect: release-missing
}

// Fixed: the same count with a release (cuda::atomic_ref, system scope).
__global__ void completion_count_release(float* out, unsigned* completed) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 2.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    cuda::atomic_ref<unsigned, cuda::thread_scope_system> c(*completed);
    c.fetch_add(1, cuda::memory_order_release);
  }
}

// Broken: a relaxed system-scope atomic_ref store of a sequence number.
__global__ void sequence_store_relaxed(float* out, unsigned* seq, unsigned value) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 3.0f;
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_system> s(*seq);
    s.store(value, cuda::memory_order_relaxed);  // expect: release-missing
  }
}

// Clean: a relaxed .gpu counter (a count of results, a work index) is not
// clear evidence of a flag: not judged.
__global__ void result_counter(const float* __restrict__ in, float* out, unsigned* count) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
  if (v > 0.0f) atomicAdd(count, 1u);
}
