// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --strict --verify --arch sm_90a %s
// acquire-missing with inline PTX flag helpers, inlined (__forceinline__) and
// out of line (__noinline__, a .func the model inlines back).

__device__ __forceinline__ unsigned ld_volatile(const unsigned* p) {
  unsigned v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_relaxed_gpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void fence_acq_rel_gpu() {
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

// Broken: ld.volatile polling, no fence.
__global__ void asm_volatile_poll(const unsigned* flag, const float* data, float* out) {
  while (ld_volatile(flag) != 1u) {  // expect-strict: acquire-missing
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// Broken: ld.relaxed.gpu polling, no fence.
__global__ void asm_relaxed_poll(const unsigned* flag, const float* data, float* out) {
  while (ld_relaxed_gpu(flag) != 1u) {  // expect-strict: acquire-missing
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// Fixed: ld.acquire.gpu polling.
__global__ void asm_acquire_poll(const unsigned* flag, const float* data, float* out) {
  while (ld_acquire_gpu(flag) != 1u) {
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// Fixed: ld.relaxed.gpu polling, then fence.acq_rel.gpu.
__global__ void asm_relaxed_poll_fence(const unsigned* flag, const float* data, float* out) {
  while (ld_relaxed_gpu(flag) != 1u) {
  }
  fence_acq_rel_gpu();
  out[threadIdx.x] = data[threadIdx.x];
}

// Broken: the fence is on one exit path only (the loop has a timeout exit that
// skips it and still reads the data).
__global__ void asm_fence_on_one_exit(const unsigned* flag, const float* data, float* out,
                                      int limit) {
  int spins = 0;
  while (true) {
    if (ld_relaxed_gpu(flag) == 1u) {  // expect-strict: acquire-missing
      fence_acq_rel_gpu();
      break;
    }
    if (++spins == limit) break;
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// An out-of-line wait helper (a .func): the loop lives in the helper, the
// reads in the kernel.
__device__ __noinline__ void wait_flag_noinline(const unsigned* flag, unsigned value) {
  while (ld_volatile(flag) != value) {  // expect-strict: acquire-missing
  }
}
__global__ void noinline_wait_then_read(const unsigned* flag, const float* data, float* out) {
  wait_flag_noinline(flag, 1u);
  out[threadIdx.x] = data[threadIdx.x];
}

// Fixed: the out-of-line helper ends with an acquire fence.
__device__ __noinline__ void wait_flag_noinline_fenced(const unsigned* flag, unsigned value) {
  while (ld_volatile(flag) != value) {
  }
  fence_acq_rel_gpu();
}
__global__ void noinline_wait_fenced_then_read(const unsigned* flag, const float* data,
                                               float* out) {
  wait_flag_noinline_fenced(flag, 1u);
  out[threadIdx.x] = data[threadIdx.x];
}

// An inlined wait helper used by one kernel: reported at the helper's load.
__device__ __forceinline__ void wait_flag_inline(const unsigned* flag, unsigned value) {
  while (ld_relaxed_gpu(flag) < value) {  // expect-strict: acquire-missing
  }
}
__global__ void inline_helper_wait(const unsigned* flag, const float* data, float* out) {
  wait_flag_inline(flag, 4u);
  out[threadIdx.x] = data[threadIdx.x] + 1.0f;
}
