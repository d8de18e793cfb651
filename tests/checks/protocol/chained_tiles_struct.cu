// Chained blocks, second shape: a single-pass scan whose tiles keep their
// status flag and their inclusive sum side by side (`tiles[b] = {flag, sum}`,
// an 8-byte record per block). Thread 0 of block b waits for tiles[b - 1]'s
// flag, reads that record's sum, stores its own sum and raises its own flag.
// The poll and the signal differ only in the block index (by one record):
// the partner is block b - 1, and the data pair is compared in that block
// (its tiles[b'].sum with b' = b - 1 is the word read). Without an acquire
// after the spin the sum may be stale; the fenced twin is silent.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Tile {
  int flag;
  float sum;
};

template <bool kAcquire>
__device__ __forceinline__ void scan_tile(const float* in, float* out, Tile* tiles) {
  const int b = blockIdx.x;
  if (threadIdx.x != 0) return;
  float prefix = 0.0f;
  if (b > 0) {
    volatile int* ready = &tiles[b - 1].flag;
    if (kAcquire) {
      while (*ready == 0) {
      }
      __threadfence();
    } else {
      while (*ready == 0) {  // expect: acquire-missing
      }
    }
    prefix = tiles[b - 1].sum;
  }
  tiles[b].sum = prefix + in[b];
  __threadfence();
  *reinterpret_cast<volatile int*>(&tiles[b].flag) = 1;
  out[b] = prefix;
}

__global__ void scan_acquired(const float* in, float* out, Tile* tiles) { scan_tile<true>(in, out, tiles); }
__global__ void scan_unacquired(const float* in, float* out, Tile* tiles) { scan_tile<false>(in, out, tiles); }
