// RUN: %fenceline check --verify --arch sm_90a %s
// Library synchronization that must produce no protocol finding: cooperative
// groups' grid.sync() (a phase-bit barrier with atom.add.release.gpu and
// ld.acquire.gpu), libcu++'s block-scope cuda::barrier (an mbarrier in shared
// memory), and cuda::atomic_ref flags with release/acquire.
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda/barrier>

// The block-scope barrier is initialized by init() below, not by a constructor.
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;

// grid.sync() used twice, and in a loop.
__global__ void grid_sync_twice(float* a, float* b) {
  cg::grid_group grid = cg::this_grid();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = 1.0f;
  grid.sync();
  b[i] = a[(i + blockDim.x) % (gridDim.x * blockDim.x)];
  grid.sync();
  a[i] = b[(i + blockDim.x) % (gridDim.x * blockDim.x)];
}

__global__ void grid_sync_in_loop(float* a, int steps) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int s = 0; s < steps; ++s) {
    a[i] += 1.0f;
    cg::this_grid().sync();
    a[i] += a[(i + blockDim.x) % (gridDim.x * blockDim.x)];
    cg::this_grid().sync();
  }
}

// A block-scope libcu++ barrier in shared memory, used in a loop.
__global__ void block_barrier_in_loop(float* out, int steps) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ float tile[256];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  float acc = 0.0f;
  for (int s = 0; s < steps; ++s) {
    tile[threadIdx.x] = (float)(s + threadIdx.x);
    bar.arrive_and_wait();
    acc += tile[(threadIdx.x + 1) % blockDim.x];
    bar.arrive_and_wait();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Release/acquire flags through cuda::atomic_ref at device scope, in a chain:
// block b waits for block b - 1's flag, adds, publishes its own.
__global__ void chained_blocks(unsigned* flags, float* partial) {
  if (threadIdx.x == 0) {
    float prefix = 0.0f;
    if (blockIdx.x > 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> prev(flags[blockIdx.x - 1]);
      while (prev.load(cuda::memory_order_acquire) == 0) {
      }
      prefix = partial[blockIdx.x - 1];
    }
    partial[blockIdx.x] += prefix;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> mine(flags[blockIdx.x]);
    mine.store(1, cuda::memory_order_release);
  }
}
