// Blocks chained by their index (a chained scan, a blocked triangular solve):
// block b waits for block b - 1's flag, reads block b - 1's slice of the
// result, writes its own and raises its own flag. The poll reads
// flags[b - 1] and the signal writes flags[b]: in one block these are two
// words, but the partner is block b - 1, whose signal writes flags[b - 1].
// Comparing the two addresses with one value of %ctaid.x decides "no write of
// this kernel raises the polled flag" (unknown-partner, strict), and the
// missing acquire of the twin goes unreported.
// XFAIL: *
// Missing rule: a signal and a poll whose addresses differ only in block-index
// terms (flags[b] against flags[b - 1]) are one word for some pair of blocks:
// the partner's %ctaid is another value than the poller's.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

template <bool kAcquire>
__device__ __forceinline__ void chain(float* x, volatile int* flags) {
  const int b = blockIdx.x;
  if (b > 0) {
    if (threadIdx.x == 0) {
      if (kAcquire) {
        while (flags[b - 1] == 0) {
        }
        __threadfence();
      } else {
        while (flags[b - 1] == 0) {  // expect: acquire-missing
        }
      }
    }
    __syncthreads();
    x[b * 128 + threadIdx.x] += x[(b - 1) * 128 + threadIdx.x];
  } else {
    x[threadIdx.x] = 1.0f;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    flags[b] = 1;
  }
}

__global__ void __launch_bounds__(128) chain_acquired(float* x, volatile int* flags) { chain<true>(x, flags); }
__global__ void __launch_bounds__(128) chain_unacquired(float* x, volatile int* flags) { chain<false>(x, flags); }
