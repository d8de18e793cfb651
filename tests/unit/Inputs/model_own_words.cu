// Which threads write the word a thread reads (model/OwnWords.h), the
// block's first barrier (model/FirstBarrier.h) and a null-checked pointer's
// value (the null side of a choice: model/Values.cpp).

// One counter per warp: lane 0 writes it and lane 0 reads it (own word);
// lane 1 reads it too (lane 0's word: not its own).
extern "C" __global__ void __launch_bounds__(128) per_warp_slot(const int* __restrict__ in, int* out) {
  __shared__ int count[4];
  const unsigned warp = threadIdx.x >> 5;
  if ((threadIdx.x & 31) == 0) count[warp] = in[threadIdx.x];
  __syncwarp();
  if ((threadIdx.x & 31) == 1) out[threadIdx.x] = *(volatile int*)&count[warp];
  if ((threadIdx.x & 31) == 0) out[threadIdx.x] = count[warp] + 1;
}

// One word for the block, written by lane 0 of every warp: lane 0 of warp 1
// reads what lane 0 of warp 0 may have written.
extern "C" __global__ void __launch_bounds__(128) block_word(const int* __restrict__ in, int* out) {
  __shared__ int total;
  if ((threadIdx.x & 31) == 0) total = in[threadIdx.x];
  __syncwarp();
  if ((threadIdx.x & 31) == 0) out[threadIdx.x] = total + 1;
}

// A record per block behind a null-checked pointer: thread 0 writes it
// before the first barrier, the threads read it after; a second write after
// the barrier is not ordered so.
extern "C" __global__ void __launch_bounds__(96) first_barrier(int* records, int* out, int n) {
  int* rec = records ? records + 4 * blockIdx.x : nullptr;
  if (threadIdx.x == 0) rec[0] = n;
  __syncthreads();
  out[blockIdx.x * 96 + threadIdx.x] = rec[0];
  if (threadIdx.x == 1) rec[1] = n;
  out[blockIdx.x * 96 + threadIdx.x + 1] = rec[1];
}
