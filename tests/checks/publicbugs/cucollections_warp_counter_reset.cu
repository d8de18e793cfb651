// Shape 5 (a reset that races with the next round), cuCollections
// static_multimap retrieve: https://github.com/NVIDIA/cuCollections/issues/336
// (report), https://github.com/NVIDIA/cuCollections/pull/337 (fix, merged).
// A cooperative group (a warp) stages matches in a shared-memory buffer with
// a per-group counter in shared memory: each round the lanes read the
// counter to place their matches, lane 0 advances it, and when the buffer is
// full the group flushes it and lane 0 resets the counter to 0. Before the
// fix nothing synchronized the group after the reset: "if we go round loops
// again, we might read before things have been reset" (racecheck reported
// it; the PR also notes that warp vote functions order no memory). The fix
// adds a group sync after the reset. Our kernel: a warp, __syncwarp() as the
// group sync, a noinline flush helper.
// counter-reset: lane 0's reset reaches the other lanes' next reads of the
// counter around the loop with no __syncwarp() (__ballot_sync orders no
// memory).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __noinline__ void flush(const int* staged, int count, int* out, unsigned* out_count) {
  const unsigned lane = threadIdx.x % 32;
  unsigned base = 0;
  if (lane == 0) base = atomicAdd(out_count, unsigned(count));
  base = __shfl_sync(0xffffffff, base, 0);
  for (int i = lane; i < count; i += 32) out[base + i] = staged[i];
}

template <bool kSyncAfterReset>
__device__ __forceinline__ void retrieve(const int* keys, int n, int* out, unsigned* out_count) {
  __shared__ int staged[4][64];
  __shared__ int counter[4];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) counter[warp] = 0;
  __syncwarp();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i - lane < n; i += gridDim.x * blockDim.x) {
    bool match = i < n && (keys[i] & 1) == 0;
    unsigned mask = __ballot_sync(0xffffffff, match);
    int slot = *(volatile int*)&counter[warp] + __popc(mask & ((1u << lane) - 1));
    if (match) staged[warp][slot] = keys[i];
    __syncwarp();
    if (lane == 0) counter[warp] += __popc(mask);
    __syncwarp();
    if (*(volatile int*)&counter[warp] > 32) {
      flush(staged[warp], counter[warp], out, out_count);
      __syncwarp();
      if (lane == 0) counter[warp] = 0;  // expect: counter-reset
      if (kSyncAfterReset) __syncwarp();
    }
  }
}

__global__ void retrieve_reset_unsynced(const int* keys, int n, int* out, unsigned* out_count) {
  retrieve<false>(keys, n, out, out_count);
}
__global__ void retrieve_reset_synced(const int* keys, int n, int* out, unsigned* out_count) {
  retrieve<true>(keys, n, out, out_count);
}
