// A row of a 2-D block is not one thread (cuBLAS's chained triangular solves
// and serialized split-K reductions: a 32 x 4 block whose row threadIdx.y == 0
// does the work). Each block waits for its turn (thread (0, 0) polls the turn
// word), the row's 32 threads read the running result and write their element
// of it, and thread (0, 0) fences and passes the turn on. The other threads of
// the row wrote too: their writes reach the signal only through a barrier that
// gathers them (here __syncwarp(), the row being one warp) before the
// signalling thread's fence. The model read `threadIdx.y == 0` as one thread,
// so the row's writes were that thread's own and the ungathered kernel was
// silent; `threadIdx.y == c` keeps a row, and a row is one thread only with an
// x condition as well (`threadIdx.x == 0` inside it).
// Safe: __syncwarp() between the row's writes and the fence. Twin without it:
// release-missing.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

template <bool kGatherRow>
__device__ __forceinline__ void pass_turn(volatile double* running, volatile int* turn) {
  if (threadIdx.y != 0) return;  // one row of 32 threads works
  const int block = blockIdx.x;
  if (threadIdx.x == 0)
    while (*turn < block) {
    }
  __syncwarp();
  __threadfence();
  const double value = running[threadIdx.x] + 1.0;
  running[threadIdx.x] = value;
  if (kGatherRow) __syncwarp();
  __threadfence();
  if (threadIdx.x == 0) {
    if (kGatherRow)
      *turn = block + 1;
    else
      *turn = block + 1;  // expect: release-missing
  }
}

__global__ void __launch_bounds__(128) turn_gathered(volatile double* running, volatile int* turn) {
  pass_turn<true>(running, turn);
}
__global__ void __launch_bounds__(128) turn_ungathered(volatile double* running, volatile int* turn) {
  pass_turn<false>(running, turn);
}
