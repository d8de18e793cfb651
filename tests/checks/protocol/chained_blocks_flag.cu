// Blocks chained by their index (a chained scan, a blocked triangular solve):
// block b waits for block b - 1's flag, reads block b - 1's slice of the
// result, writes its own and raises its own flag. The poll reads
// flags[b - 1] and the signal writes flags[b]: in one block these are two
// words, but the partner is block b - 1, whose signal writes flags[b - 1].
// The poll's and the signal's addresses differ only in the block index
// (MemoryAnalysis::blockDistance): the signal is the partner's, made by the
// block at %ctaid.x - 1, and the data read is compared with that block's
// writes (its x[b' * 128 + tid] with b' = b - 1 is the word read). The
// missing acquire of the twin is a default-tier warning; the fenced twin is
// silent. The same renaming decides the signal's reader (chain_unreleased).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

template <bool kAcquire, bool kRelease = true>
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
    if (kRelease) {
      __threadfence();
      flags[b] = 1;
    } else {
      flags[b] = 1;  // expect: release-missing
    }
  }
}

__global__ void __launch_bounds__(128) chain_acquired(float* x, volatile int* flags) { chain<true>(x, flags); }
__global__ void __launch_bounds__(128) chain_unacquired(float* x, volatile int* flags) { chain<false>(x, flags); }
// The signal's side: the reader of block b's x[b * 128 + tid] is block b + 1
// (its x[(b' - 1) * 128 + tid]); without the fence before the flag, the
// write may reach it after the flag.
__global__ void __launch_bounds__(128) chain_unreleased(float* x, volatile int* flags) { chain<true, false>(x, flags); }
