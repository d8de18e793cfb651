// counter-reset on a word one warp hands round with __syncwarp() (issue 34,
// the CUDA math libraries' triangular solves): one warp of the block solves a
// small triangular system; in step k the lane that owns row k divides its
// partial sum by the diagonal and writes the solved value to one shared word,
// __syncwarp(), the lanes below read it into their partial sums, __syncwarp(),
// and the next step's lane writes the word again. The writer is one thread of
// the block and its value is computed from an earlier read of the same word
// (the partial sum took it in), which is counter-reset's shape; every path
// from the other lanes' read to the next write passes a bar.warp.sync, which
// orders the threads of the warp. Whether every reader is in the writer's
// warp is not decided here (the region is entered by the block's first warp,
// `threadIdx.y == 0`, a guard the check does not follow): strict
// tier, `warp-barrier-only`.
// The steps are unrolled (n is a template parameter), as in the libraries'
// solves: the writer of step k is `threadIdx.x == k` inside the row
// `threadIdx.y == 0`, one thread. (`threadIdx.y == 0` alone is a row of the
// block, not one thread; a loop's `lane == k` against a counter is not
// recognized as one thread.)
// The twin without the second __syncwarp() lets a lane still reading step
// k's value race with step k + 1's write: the default tier keeps it.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s
// RUN: not %fenceline check --arch sm_90a --strict --format json %s | FileCheck %s
// CHECK-DAG: "how": "warp-barrier-only"
// CHECK-DAG: "how": "no-barrier-before"

template <bool kSyncBeforeNextWrite, int n>
__device__ __forceinline__ void solve(const double* lower, double* x) {
  __shared__ double diag[32];
  __shared__ double solved;
  if (threadIdx.y != 0) return;  // one warp (blockDim.x == 32) solves
  const unsigned lane = threadIdx.x;
  diag[lane] = lower[lane * 33];
  double sum = x[lane];
  __syncwarp();
#pragma unroll
  for (int k = 0; k < n; ++k) {
    if (lane == unsigned(k)) {
      sum = sum * diag[lane];  // diag holds the inverses
      if (kSyncBeforeNextWrite)
        *(volatile double*)&solved = sum;  // expect-strict: counter-reset
      else
        *(volatile double*)&solved = sum;  // expect: counter-reset
    }
    __syncwarp();
    if (lane > unsigned(k)) sum = fma(lower[lane * 32 + k], solved, sum);
    if (kSyncBeforeNextWrite) __syncwarp();
  }
  x[lane] = sum;
}

__global__ void warp_solve_synced(const double* lower, double* x) { solve<true, 4>(lower, x); }
__global__ void warp_solve_unsynced(const double* lower, double* x) { solve<false, 4>(lower, x); }

// The notes on the reads (the warp-barrier-only one names the warp barrier).
// RUN: not %fenceline check --arch sm_90a --strict %s 2>&1 | FileCheck --check-prefix=NOTE %s
// NOTE: note: read by threads other than the writer; only a warp barrier (bar.warp.sync) lies between this read and the rewrite
// NOTE: note: read by threads other than the writer; no barrier orders this read before the rewrite
