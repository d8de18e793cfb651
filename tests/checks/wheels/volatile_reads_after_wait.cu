// Data read with volatile-style loads after a wait (class V of the CUDA math libraries,
// docs/real-code.md "The wheels sample"): blocks publish results with a fence and then count
// themselves in; the block that waits (a spin on the count, or the last block by its ticket) reads
// the results with volatile loads (or __ldcg), with no fence after the observation. The PTX model asks
// for an acquire there; the reads are issued only once the observed value decided the exit, and
// no L1 serves them (L2 holds what the partner's fence completed), so no hardware is known to
// return stale data, and the CUDA Programming Guide's last-block example is written this way: a
// disputed rule, strict tier (Diagnostic::disputed).
//  - volatile / __ldcg reads of the results: acquire-missing, strict only.
//  - the twins read the results with plain loads (an L1 may hold a stale line: fenceline-lab
//    mp-l1), or read one result plainly beside volatile ones, or with ld.relaxed.gpu (a strong
//    load: the memory model's orderings, chosen, not the idiom): acquire-missing, default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ unsigned ticket_volatile;
__device__ unsigned ticket_plain;

// The last block sums every block's result (the ticket form).
__global__ void last_block_volatile(const float* in, volatile float* result, float* out) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    result[blockIdx.x] = in[blockIdx.x];
    __threadfence();
    const unsigned arrived = atomicInc(&ticket_volatile, gridDim.x);  // expect-strict: acquire-missing
    last = arrived == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    float total = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += result[b];
    *out = total;
  }
}

__global__ void last_block_plain(const float* in, float* result, float* out) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    result[blockIdx.x] = in[blockIdx.x];
    __threadfence();
    const unsigned arrived = atomicInc(&ticket_plain, gridDim.x);  // expect: acquire-missing
    last = arrived == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    float total = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += result[b];
    *out = total;
  }
}

// Block 0 waits for the others' count, then every thread of it reads one result.
__device__ __forceinline__ void publish(float* slots, unsigned* done, const float* in) {
  if (threadIdx.x == 0) {
    slots[blockIdx.x] = in[blockIdx.x];
    __threadfence();
    atomicAdd(done, 1u);
  }
}

__device__ __forceinline__ unsigned slot_of_thread() { return 1 + threadIdx.x % (gridDim.x - 1); }

__global__ void wait_volatile(float* slots, unsigned* done, const float* in, float* out) {
  if (blockIdx.x != 0) return publish(slots, done, in);
  if (threadIdx.x == 0)
    while (*static_cast<volatile unsigned*>(done) < gridDim.x - 1) {  // expect-strict: acquire-missing
    }
  __syncthreads();
  out[threadIdx.x] = static_cast<volatile float*>(slots)[slot_of_thread()];
}

__global__ void wait_cg(float* slots, unsigned* done, const float* in, float* out) {
  if (blockIdx.x != 0) return publish(slots, done, in);
  if (threadIdx.x == 0)
    while (*static_cast<volatile unsigned*>(done) < gridDim.x - 1) {  // expect-strict: acquire-missing
    }
  __syncthreads();
  out[threadIdx.x] = __ldcg(slots + slot_of_thread());
}

__device__ __forceinline__ float ld_relaxed_gpu(const float* p) {
  float v;
  asm volatile("ld.relaxed.gpu.global.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
  return v;
}

__global__ void wait_relaxed(float* slots, unsigned* done, const float* in, float* out) {
  if (blockIdx.x != 0) return publish(slots, done, in);
  if (threadIdx.x == 0)
    while (*static_cast<volatile unsigned*>(done) < gridDim.x - 1) {  // expect: acquire-missing
    }
  __syncthreads();
  out[threadIdx.x] = ld_relaxed_gpu(slots + slot_of_thread());
}

__global__ void wait_plain(float* slots, unsigned* done, const float* in, float* out) {
  if (blockIdx.x != 0) return publish(slots, done, in);
  if (threadIdx.x == 0)
    while (*static_cast<volatile unsigned*>(done) < gridDim.x - 1) {  // expect: acquire-missing
    }
  __syncthreads();
  out[threadIdx.x] = slots[slot_of_thread()];
}

// One volatile read, then a plain one of another block's result: the plain read is the finding.
__global__ void wait_mixed(float* slots, unsigned* done, const float* in, float* out) {
  if (blockIdx.x != 0) return publish(slots, done, in);
  if (threadIdx.x == 0)
    while (*static_cast<volatile unsigned*>(done) < gridDim.x - 1) {  // expect: acquire-missing
    }
  __syncthreads();
  const float first = static_cast<volatile float*>(slots)[slot_of_thread()];
  out[threadIdx.x] = first + slots[1 + (threadIdx.x + 1) % (gridDim.x - 1)];
}
