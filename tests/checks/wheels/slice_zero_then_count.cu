// The residual shape of F4 (docs/real-code.md, "After the fixes"; issue 34): a persistent loop
// hands each block a run of work items; the items of one slice share one output row and one lock
// word. The first item of a slice zeroes the row, and after __syncthreads() thread 0 publishes the
// zeros by setting the slice's lock to 1 - count (negative); every later item of the slice waits
// with an acquire poll until the lock is negative, counts itself with a relaxed atomic add, and
// then adds its part into the row with a CAS loop (a plain read of the row, then atomicCAS).
//
// The count of a later item is not the zeroing's signal: the readers that observe the count read
// that later item's row, and the zeroes of an earlier slice by the same block were published (or
// not) by that slice's own lock store, on the signalling thread's path before the count.
// - slice_zero_fenced: thread 0 fences before the lock store: silent by default. The count of a
//   later item is not paired with the zeroing (the barrier hands the zeroes to thread 0, which
//   passes the fence before any count). The CAS adds of the block's previous item reach the count
//   with no release; their address is recomputed on every path to it (a later trip of the
//   persistent loop): a strict-tier note whose read link is undecided ("other-trip").
// - slice_zero_plain: no fence: the plain lock store is the signal without a release (the zeroes
//   reach the other blocks' CAS reads through it); reported there by default, the count only as
//   the strict-tier note above.
// - count_publishes_own_write: the twin where the pairing is real: the later items of a slice take
//   turns (item idx waits for the lock to read idx - count), and each stores a header word of the
//   slice (plain) before its relaxed count; the next item reads the header after observing that
//   count.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ int poll_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void add_into(int* row, int part) {
  int seen = row[threadIdx.x];
  int old;
  while ((old = atomicCAS(&row[threadIdx.x], seen, seen + part)) != seen) seen = old;
}

// Safe: the zeroes are fenced by the publishing thread after the barrier.
__global__ void slice_zero_fenced(int* locks, int* out, const int* __restrict__ parts, int slices, int per_slice) {
  for (int w = blockIdx.x; w < slices * per_slice; w += gridDim.x) {
    const int s = w / per_slice;
    const int idx = w - s * per_slice;
    int* row = out + s * blockDim.x;
    if (idx == 0) {
      row[threadIdx.x] = 0;
      __syncthreads();
      if (threadIdx.x == 0) {
        __threadfence();
        locks[s] = 1 - per_slice;
      }
    } else {
      if (threadIdx.x == 0) {
        while (poll_acquire(&locks[s]) >= 0) {
        }
        atomicAdd(&locks[s], 1);  // expect-strict: release-missing
      }
      __syncthreads();
    }
    add_into(row, parts[w * blockDim.x + threadIdx.x]);
  }
}

// Broken: the lock store after the barrier is plain and no fence precedes it.
__global__ void slice_zero_plain(int* locks, int* out, const int* __restrict__ parts, int slices, int per_slice) {
  for (int w = blockIdx.x; w < slices * per_slice; w += gridDim.x) {
    const int s = w / per_slice;
    const int idx = w - s * per_slice;
    int* row = out + s * blockDim.x;
    if (idx == 0) {
      row[threadIdx.x] = 0;
      __syncthreads();
      if (threadIdx.x == 0) locks[s] = 1 - per_slice;  // expect: release-missing
    } else {
      if (threadIdx.x == 0) {
        while (poll_acquire(&locks[s]) >= 0) {
        }
        atomicAdd(&locks[s], 1);  // expect-strict: release-missing
      }
      __syncthreads();
    }
    add_into(row, parts[w * blockDim.x + threadIdx.x]);
  }
}

// Broken twin (the pairing is real): a later item stores a header of its own into the row before
// its relaxed count; the items after it read the header once they observe the count.
__global__ void count_publishes_own_write(int* locks, int* out, int* heads, const int* __restrict__ parts,
                                          int slices, int per_slice) {
  for (int w = blockIdx.x; w < slices * per_slice; w += gridDim.x) {
    const int s = w / per_slice;
    const int idx = w - s * per_slice;
    int* row = out + s * blockDim.x;
    if (idx == 0) {
      row[threadIdx.x] = 0;
      __syncthreads();
      if (threadIdx.x == 0) {
        __threadfence();
        locks[s] = 1 - per_slice;
      }
    } else {
      if (threadIdx.x == 0) {
        while (poll_acquire(&locks[s]) != idx - per_slice) {
        }
        heads[s] = heads[s] + idx;
        atomicAdd(&locks[s], 1);  // expect: release-missing
      }
      __syncthreads();
    }
    add_into(row, parts[w * blockDim.x + threadIdx.x] + heads[s]);
  }
}
