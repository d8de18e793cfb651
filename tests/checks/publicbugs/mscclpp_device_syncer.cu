// Shape 1 (last block does the work) and a missing acquire after a spin,
// mscclpp: https://github.com/microsoft/mscclpp/pull/497 (report),
// https://github.com/microsoft/mscclpp/pull/499 (fix, merged).
// A grid-wide syncer: each block's thread 0 fences, then counts itself in
// with an atomic increment; the block whose increment returns the last count
// flips a flag with a relaxed store, the others spin on the flag with
// relaxed loads. Before the fix there was a fence before the count (the
// release) and none after the wait: neither a waiting block nor the last
// arriver (whose increment's returned value is its observation of every
// other arrival) acquired, and the last arriver's flag store carried the
// other blocks' releases on without an acquire in between, so reads of other
// blocks' data after the sync could be stale. The fix (#499, after the #497
// discussion of "fence1/fence2/fence3") fences before the count, between the
// last arriver's increment and its flag store, and after the wait, so that
// any two participating blocks are in a release/acquire relation. Our
// kernel: each block writes a slot, syncs, and reads its neighbour's slot.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>

struct Syncer {
  unsigned count;
  unsigned flag;
};

template <bool kAcquire>
__device__ __forceinline__ void grid_sync(Syncer* s, unsigned& phase) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();  // release: this block's writes before its arrival
    unsigned next = phase ^ 1u;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> flag(s->flag);
    if (atomicInc(&s->count, gridDim.x - 1) == gridDim.x - 1) {  // expect: acquire-missing
      if (kAcquire) __threadfence();  // fence2: acquire the arrivals, release them on
      flag.store(next, cuda::memory_order_relaxed);  // expect: release-missing
    } else {
      while (flag.load(cuda::memory_order_relaxed) != next) {  // expect: acquire-missing
      }
    }
    phase = next;
    if (kAcquire) __threadfence();  // fence3: the last arriver and the waiters acquire
  }
  __syncthreads();
}

__global__ void neighbour_exchange_unfenced(Syncer* s, float* slots, float* out) {
  unsigned phase = 0;
  slots[blockIdx.x * blockDim.x + threadIdx.x] = float(blockIdx.x + threadIdx.x);
  grid_sync<false>(s, phase);
  unsigned peer = (blockIdx.x + 1) % gridDim.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = slots[peer * blockDim.x + threadIdx.x];
}

__global__ void neighbour_exchange_fenced(Syncer* s, float* slots, float* out) {
  unsigned phase = 0;
  slots[blockIdx.x * blockDim.x + threadIdx.x] = float(blockIdx.x + threadIdx.x);
  grid_sync<true>(s, phase);
  unsigned peer = (blockIdx.x + 1) % gridDim.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = slots[peer * blockDim.x + threadIdx.x];
}
