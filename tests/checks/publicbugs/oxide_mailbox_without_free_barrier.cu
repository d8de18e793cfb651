// A one-way mailbox in shared memory rewritten before its readers are done
// (a "full" mbarrier with no "empty" partner), cuda-oxide GEMM example:
// https://github.com/NVlabs/cuda-oxide/pull/1066 (merged).
// A persistent warp-specialized GEMM passes each tile's coordinates from the
// scheduler warp to the other warps through a small shared-memory record: the
// scheduler writes the record and arrives on a "ready" mbarrier, the workers
// wait on it and read the record. Nothing told the scheduler that the workers
// had read it, so for the next tile it could overwrite the record while a
// slow worker was still reading the previous one. The fix adds a "free"
// mbarrier with one arrival per worker (count 5): each worker arrives after
// its reads (after a warp sync), and the scheduler waits on it before every
// publish but the first -- "a proper full/empty pair, which is the same
// protocol CUTLASS's pipeline classes use for reusable slots". Our kernel:
// one scheduler warp, four worker warps, a record of two ints.
//
// Found by slot-reuse (branch recall26): the rewrite of the record follows the
// scheduler's arrive with no wait of the scheduler on any way to it, and the
// workers, in the other branch, read the record after waiting on that barrier
// (PTX MCM "Causality order"; the mbarrier arrive is a release of the reader's
// prior accesses, the writer's wait the acquire).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ void wait_phase(uint64_t* bar, uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

template <bool kFreeBarrier>
__device__ __forceinline__ void persistent_tiles(const int* schedule, float* out, int tiles) {
  __shared__ int record[2];  // tile row, tile column
  __shared__ alignas(8) uint64_t ready, free_slot;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&ready, 1);
    cuda::ptx::mbarrier_init(&free_slot, 4);  // one arrival per worker warp
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0) {  // scheduler
    for (int t = 0; t < tiles; ++t) {
      if (kFreeBarrier && t > 0) wait_phase(&free_slot, (t - 1) & 1);
      if (lane == 0) {
        record[0] = schedule[2 * (blockIdx.x + t * gridDim.x)];  // expect: slot-reuse
        record[1] = schedule[2 * (blockIdx.x + t * gridDim.x) + 1];
        (void)cuda::ptx::mbarrier_arrive(&ready);
      }
      __syncwarp();
    }
  } else if (warp <= 4) {  // workers
    for (int t = 0; t < tiles; ++t) {
      wait_phase(&ready, t & 1);
      const int row = record[0], col = record[1];
      __syncwarp();
      if (kFreeBarrier && lane == 0) (void)cuda::ptx::mbarrier_arrive(&free_slot);
      out[((row * 64 + col) * 4 + (warp - 1)) * 32 + lane] += 1.f;
    }
  }
}

__global__ void tiles_through_one_way_mailbox(const int* schedule, float* out, int tiles) {
  persistent_tiles<false>(schedule, out, tiles);
}
__global__ void tiles_through_full_empty_pair(const int* schedule, float* out, int tiles) {
  persistent_tiles<true>(schedule, out, tiles);
}
