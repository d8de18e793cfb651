// acquire-missing on a ticket (issue 30, shape 1) where the counting thread
// fences after the count only on one side of the ticket's own decision:
// `last = atomicAdd(...) == n - 1; if (last) __threadfence();`, then a barrier
// hands `last` to the block, whose threads read every block's partials under
// `if (last)`. That is correct: the fence runs exactly when the reads do. The
// path that skips the fence takes the decision's other side, and the checker
// does not tell which side of a decision means "last" (the decision goes
// through shared memory and a second test), so the finding rests on that
// undecided link ("decision-side") and is strict tier, not a warning. The
// unconditional fence is silent in both tiers; no fence at all is the hazard,
// decided: the counting thread reaches the reads on the "last" side whichever
// side that is. The same undecided link holds the wrong-polarity fence
// (`if (!last)`), a real bug this tier does not show by default.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s

__global__ void fence_when_last(const float* in, float* partials, unsigned* ticket, float* out) {
  __shared__ bool last;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  partials[blockIdx.x * blockDim.x + threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;  // expect-strict: acquire-missing
    if (last) __threadfence();
  }
  __syncthreads();
  if (last) {
    float sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += partials[b * blockDim.x + threadIdx.x];
    out[threadIdx.x] = sum;
  }
}

__global__ void fence_when_not_last(const float* in, float* partials, unsigned* ticket, float* out) {
  __shared__ bool last;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  partials[blockIdx.x * blockDim.x + threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;  // expect-strict: acquire-missing
    if (!last) __threadfence();
  }
  __syncthreads();
  if (last) {
    float sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += partials[b * blockDim.x + threadIdx.x];
    out[threadIdx.x] = sum;
  }
}

__global__ void fence_always(const float* in, float* partials, unsigned* ticket, float* out) {
  __shared__ bool last;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  partials[blockIdx.x * blockDim.x + threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    __threadfence();
  }
  __syncthreads();
  if (last) {
    float sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += partials[b * blockDim.x + threadIdx.x];
    out[threadIdx.x] = sum;
  }
}

__global__ void no_fence_after(const float* in, float* partials, unsigned* ticket, float* out) {
  __shared__ bool last;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  partials[blockIdx.x * blockDim.x + threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;  // expect: acquire-missing
  }
  __syncthreads();
  if (last) {
    float sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += partials[b * blockDim.x + threadIdx.x];
    out[threadIdx.x] = sum;
  }
}
