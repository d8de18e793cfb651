// counter-reset on a word one thread initializes before a loop (issue 34, cuSOLVER's Cholesky
// factorizations): thread (0, 0) of a 2-D block stores INT_MAX to a shared word at the start,
// with no barrier after it; in the loop over columns the diagonal thread of column j
// (`threadIdx.y == j && threadIdx.x == j`) lowers the word when its pivot is not positive, and a
// __syncthreads() ends each column. A path from the store to that read with no barrier stays in
// the first column (j = 0), where the reading thread is (0, 0), the writer itself: it reads its
// own store. Every later column comes after a barrier. The check took the read's guard for
// leaving the writer out; it now evaluates the guard with the loop counter at its values on the
// barrier-free paths (0) and finds the writer's thread alone: no finding.
// The twin's reader of column j is thread (j + 1, j): on the first column, thread (1, 0), which
// may read the word before thread (0, 0) has stored it: counter-reset stays in the default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s

template <int kShift>
__device__ __forceinline__ void factor(float* a, int n, int* info) {
  __shared__ int first_bad;
  const int tx = threadIdx.x, ty = threadIdx.y;
  // Reported for factor_shifted only.
  if (tx == 0 && ty == 0) first_bad = 0x7fffffff;  // expect: counter-reset
  float v = (tx < n && ty < n) ? a[ty * n + tx] : 0.0f;
  for (int j = 0; j < n; ++j) {
    if (ty == j && tx == j + kShift && v <= 0.0f) first_bad = min(first_bad, j);
    __syncthreads();
    if (tx > j && ty > j) v -= a[ty * n + j] * a[tx * n + j];
    __syncthreads();
  }
  if (tx == 0 && ty == 0) *info = first_bad;
}

// Safe: the first column's reader is the writer.
__global__ void factor_diagonal(float* a, int n, int* info) { factor<0>(a, n, info); }
// Broken twin: the first column's reader is thread (1, 0).
__global__ void factor_shifted(float* a, int n, int* info) { factor<1>(a, n, info); }
