// Shows barrier-reuse: a hand-written grid barrier counts arrivals up to a
// fixed threshold (gridDim.x) and is then used again in the next iteration.
// The counter is never reset and carries no phase, so on the second use
// every block already sees count >= gridDim.x and walks through without
// waiting. (Launch it with all blocks co-resident, as any grid barrier needs.)
// Fix: a sense-reversing barrier (flip a phase bit, compare against the phase
// the block's own atomic returned), or cooperative_groups::this_grid().sync().

__device__ unsigned int arrived;

__device__ void grid_barrier() {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(&arrived, 1u);
    while (*(volatile unsigned int*)&arrived < gridDim.x) {
    }
    __threadfence();
  }
  __syncthreads();
}

__global__ void relax(float* grid, int steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int step = 0; step < steps; ++step) {
    if (i > 0 && i < n - 1) grid[i] = 0.5f * (grid[i - 1] + grid[i + 1]);
    grid_barrier();
  }
}
