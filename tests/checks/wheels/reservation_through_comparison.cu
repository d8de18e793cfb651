// A work-queue reservation whose value reaches an equality only through other comparisons
// (docs/real-code.md, "cuSPARSE multihash_step"): one step of a hash-priority graph coloring.
// Lane 0 of each warp reserves `chunk` rows with a relaxed `atomicAdd` on a queue counter and
// broadcasts the first row to the warp. For each uncoloured row, the warp compares the row's hash
// with its uncoloured neighbours' hashes and gathers the outcomes as two bits (some neighbour
// hashes higher, some lower); the row takes a colour when it is a local maximum, some lower and
// none higher: `(seen & 3) == 2`. The constant 2 looks like a count fixed by the launch,
// but what reaches it from the reservation is the outcome of `>`/`<` comparisons of hashes,
// turned into bits by `selp`: no count of arrived warps. The reservation is no ticket; each row is
// reserved by one warp, and the colour that warp reads and writes is its own row's. Nothing is
// reported in either tier (a neighbour coloured in this step has colour `next`, which the step
// counts as uncoloured: its old and new values decide alike).
// The twin is the last-block idiom: each block's lane 0 stores a partial, counts itself with a
// relaxed `atomicAdd`, and compares the count with `gridDim.x - 1`; the outcome is handed to the
// block through shared memory and tested again (`!= 0`) after `__syncthreads()`. That later
// comparison follows the equality; the first comparison the count meets is the one with the
// launch's count of blocks, so the ticket stands: the last block reads the partials with no
// acquire (acquire-missing) and the counting atomic publishes them with no release
// (release-missing), both default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ unsigned mix(unsigned x) {
  x = (x ^ 61u) ^ (x >> 16);
  x *= 9u;
  x ^= x >> 4;
  x *= 0x27d4eb2du;
  return x ^ (x >> 15);
}

// Safe: a reservation, compared with hash outcomes only.
__global__ void colour_step(int n, const int* __restrict__ row_start, const int* __restrict__ column,
                            int* colour, int* queue, int chunk, unsigned seed, int next) {
  const int lane = threadIdx.x & 31;
  for (;;) {
    int first = 0;
    if (lane == 0) first = atomicAdd(queue, chunk);
    first = __shfl_sync(0xffffffffu, first, 0);
    if (first >= n) return;
    for (int k = 0; k < chunk; ++k) {
      const int row = first + k;
      if (row >= n || colour[row] != -1) continue;
      const unsigned mine = mix(unsigned(row) ^ seed);
      unsigned seen = 0;  // bit 0: some neighbour hashes higher; bit 1: some hashes lower
      for (int j = row_start[row] + lane; j < row_start[row + 1]; j += 32) {
        const int other = column[j];
        if (other == row) continue;
        const int c = colour[other];
        if (c != -1 && c < next) continue;
        const unsigned theirs = mix(unsigned(other) ^ seed);
        seen |= (mine < theirs ? 1u : 0u) | (mine > theirs ? 2u : 0u);
      }
      seen = __reduce_or_sync(0xffffffffu, seen);
      if (lane == 0 && (seen & 3u) == 2u) colour[row] = next;
    }
  }
}

// Broken twin: the count compared with the launch's count of blocks is the last block's ticket.
__global__ void last_block_total(const int* in, int* partial, unsigned* done, int* total) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = in[blockIdx.x] * 2;
    last = atomicAdd(done, 1u) == gridDim.x - 1;  // expect: acquire-missing, release-missing
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += partial[b];
    *total = sum;
  }
}
