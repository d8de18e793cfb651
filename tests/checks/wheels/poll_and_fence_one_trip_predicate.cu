// Session 26, cuDSS's shape J (docs/real-code.md): a loop computes a predicate once per trip,
// polls only when a value read under that predicate says so (the poll's guard is zeroed on the
// trip and set only where the predicate holds), and fences after the poll under the same
// predicate. Every trip that polls also fences; the path from the poll that skips the fence
// runs on no trip (model/TripDecidedBranches.h). Main reported acquire-missing at the poll.
// Broken twin: the fence is under another test of the trip counter, so a trip that polls may
// skip it (i = 1 polls, 1 & 2 is 0): acquire-missing must stay.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ int poll_ready(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ int poll_ready_twin(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ void raise_ready(int* p) {
  asm volatile("st.relaxed.gpu.global.s32 [%0], 1;" ::"l"(p) : "memory");
}
__device__ __forceinline__ void fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// Block b gathers the rows of the odd-numbered earlier blocks that it needs, then publishes its own.
__global__ void poll_and_fence_one_trip_predicate(const int* need, int* ready, float* rows, int n) {
  float acc = 0.f;
  for (int i = 0; i < blockIdx.x; ++i) {
    const bool mine = (i & 1) && i < n;
    bool wait = false;
    if (mine) wait = need[i] != 0;
    if (wait)
      while (poll_ready(&ready[i]) == 0) {}
    if (mine) fence_acq_rel();
    acc += rows[i * 256 + threadIdx.x];
  }
  rows[blockIdx.x * 256 + threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    fence_acq_rel();
    raise_ready(&ready[blockIdx.x]);
  }
}

// Broken: the fence's test is not the poll's.
__global__ void poll_and_fence_other_predicate(const int* need, int* ready, float* rows, int n) {
  float acc = 0.f;
  for (int i = 0; i < blockIdx.x; ++i) {
    const bool mine = (i & 1) && i < n;
    bool wait = false;
    if (mine) wait = need[i] != 0;
    if (wait)
      while (poll_ready_twin(&ready[i]) == 0) {}
    if (i & 2) fence_acq_rel();
    acc += rows[i * 256 + threadIdx.x];
  }
  rows[blockIdx.x * 256 + threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    fence_acq_rel();
    raise_ready(&ready[blockIdx.x]);
  }
}
