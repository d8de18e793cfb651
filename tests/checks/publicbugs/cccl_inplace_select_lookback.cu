// A flag that releases reads (write-after-read through a decoupled look-back),
// CCCL (CUB DeviceSelect / thrust::remove_if run in place):
// https://github.com/NVIDIA/cccl/issues/1730 (report),
// https://github.com/NVIDIA/cccl/pull/1782 (fix, merged).
// Stream compaction in place: each block loads its tile of items straight
// from global memory into registers, counts the ones it keeps, publishes its
// running total in the look-back tile-status word, and then scatters the kept
// items to the offset its predecessors' totals give, in the same array. That
// offset lies at or below the block's own tile, so a block's scatter can
// overwrite items of an earlier tile. The earlier block announced its total
// only after loading its items, but for primitive item types the status word
// was written with a relaxed store: nothing ordered the block's loads before
// the announcement, and a successor that saw the total could overwrite items
// the earlier block had not yet read. The PR's account: a block must have
// loaded its items "before it signals successor thread blocks the number of
// items it selected"; it makes the status store a release (`st.release`) for
// the in-place case, and the review adds the matching acquire on the waiting
// side. Our kernel: a chained scan (one predecessor), one item per thread,
// the status word packs a valid bit with the inclusive count; the wait side
// acquires in both variants, so only the release differs.
//
// XFAIL: *
// release-missing asks for a release of the *writes* before a signal; here
// the hazard is the signalling block's *reads* (its input items) against the
// partner's writes after its wait (the scatter into the same array). The
// missing link: "reads before a signal that the partner overwrites after
// observing it" (MCM "Causality order": a read is ordered before a later
// conflicting write of another thread only through a release/acquire pattern).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>

#include <cstdint>

template <bool kRelease>
__device__ __forceinline__ void compact_tile(int* items, unsigned long long* tile_status) {
  __shared__ int keeps[256];
  __shared__ int base;
  const int tile = blockIdx.x;
  const int item = items[tile * blockDim.x + threadIdx.x];  // direct load: no shared-memory staging
  const int keep = item != 0;
  keeps[threadIdx.x] = keep;
  const int count = __syncthreads_count(keep);  // every load of the tile is done before this barrier
  int rank = 0;
  for (int j = 0; j < static_cast<int>(threadIdx.x); ++j) rank += keeps[j];
  if (threadIdx.x == 0) {
    int prefix = 0;
    if (tile > 0) {
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> prev(tile_status[tile - 1]);
      unsigned long long w;
      do {
        w = prev.load(cuda::memory_order_acquire);
      } while ((w >> 32) == 0);
      prefix = static_cast<int>(w & 0xffffffffu);
    }
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> mine(tile_status[tile]);
    const unsigned long long word = (1ull << 32) | static_cast<unsigned>(prefix + count);
    mine.store(word, kRelease ? cuda::memory_order_release : cuda::memory_order_relaxed);  // expect: release-missing
    base = prefix;
  }
  __syncthreads();
  if (keep) items[base + rank] = item;  // may land in an earlier tile's items
}

__global__ void select_in_place_relaxed_status(int* items, unsigned long long* tile_status) {
  compact_tile<false>(items, tile_status);
}
__global__ void select_in_place_release_status(int* items, unsigned long long* tile_status) {
  compact_tile<true>(items, tile_status);
}
