// RUN: %fenceline check --verify --arch sm_90a %s
// RUN: %fenceline check --strict --verify --arch sm_90a %s
// acquire-missing on spin loops that nvcc compiles into unusual shapes: a
// warp-wide exit through vote.sync.all (__all_sync), exits through negated and
// selected predicates, loops of several blocks (backoff with __nanosleep, an
// address recomputed with a 64-bit division inside the loop), and a loop whose
// exit is a volatile 64-bit load compared through a mask.

// Broken: each lane polls its own flag; the warp leaves when all lanes saw 1.
__global__ void vote_all_spin(const int* flags, const float* data, float* out) {
  int lane = threadIdx.x & 31;
  while (!__all_sync(0xffffffffu, *(volatile const int*)&flags[lane] == 1)) {  // expect-strict: acquire-missing
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// Fixed: the same, followed by __threadfence().
__global__ void vote_all_spin_fenced(const int* flags, const float* data, float* out) {
  int lane = threadIdx.x & 31;
  while (!__all_sync(0xffffffffu, *(volatile const int*)&flags[lane] == 1)) {
  }
  __threadfence();
  out[threadIdx.x] = data[threadIdx.x];
}

// Broken: exponential backoff with __nanosleep turns the loop into several blocks.
__global__ void backoff_spin(const unsigned* flag, unsigned expected, const float* data,
                             float* out) {
  unsigned delay = 8;
  while (*(volatile const unsigned*)flag != expected) {  // expect-strict: acquire-missing
    __nanosleep(delay);
    if (delay < 256) delay *= 2;
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// Fixed: backoff loop, then __threadfence().
__global__ void backoff_spin_fenced(const unsigned* flag, unsigned expected, const float* data,
                                    float* out) {
  unsigned delay = 8;
  while (*(volatile const unsigned*)flag != expected) {
    __nanosleep(delay);
    if (delay < 256) delay *= 2;
  }
  __threadfence();
  out[threadIdx.x] = data[threadIdx.x];
}

// Broken: the flag's address is recomputed inside the loop (a volatile divisor
// forces a 64-bit division on every iteration) and the test goes through a
// boolean held in a register (selp/not in the PTX).
__global__ void recomputed_address_spin(const int* flags, volatile unsigned long long* stride,
                                        const float* data, float* out) {
  bool ready = false;
  do {
    unsigned long long slot = (unsigned long long)blockIdx.x * 4096ull / *stride;
    ready = *(volatile const int*)&flags[slot] != 0;  // expect-strict: acquire-missing
  } while (!ready);
  out[threadIdx.x] = data[threadIdx.x];
}

// Broken: a 64-bit flag polled through a mask.
__global__ void masked_spin(const unsigned long long* word, const float* data, float* out) {
  while ((*(volatile const unsigned long long*)word & 0xff00000000ull) == 0) {  // expect-strict: acquire-missing
  }
  out[threadIdx.x] = data[threadIdx.x];
}

// Fixed: the loop in a helper that several kernels call, fenced at its end.
__device__ __forceinline__ void wait_ge(const unsigned* counter, unsigned target) {
  while (*(volatile const unsigned*)counter < target) {
  }
  __threadfence();
}
__global__ void helper_wait_twice(const unsigned* counter, const float* data, float* out) {
  wait_ge(counter, 1);
  float a = data[threadIdx.x];
  wait_ge(counter, 2);
  out[threadIdx.x] = a + data[threadIdx.x + 32];
}
