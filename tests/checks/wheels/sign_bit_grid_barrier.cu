// Session 28, shape P5 of the held-out look (docs/real-code.md, "Held-out first look (session 27)";
// cuDNN's batch-norm kernels): grid barriers whose phase is the sign bit of the counter, the scheme
// of CUDA's cooperative groups (cooperative_groups/details/sync.h). One thread per block arrives:
// the master block adds 0x80000001 - n, the others 1, so each use adds 0x80000000 and flips bit 31
// exactly when the last block arrives; the wait spins until bit 31 differs from its value at the
// block's own arrival (the arrival's returned value, or a load of the counter just before it).
// Reusable without a reset (model/PhaseFlipBarriers.h). Main (fenceline-m28a) reported
// barrier-reuse ("fixed threshold") at the hand-written form's arrivals, and release-missing at a
// last barrier's arrival paired with the wait of the loop's barrier, another use (another phase).
//
// Twins that still fire: the master adds 1 like the others, or 0x80000000 - n (barrier-reuse:
// no phase flip); no membar.gl before the arrival (release-missing); no fence after the wait
// (acquire-missing); the last barrier's own wait followed by reads of the other blocks' data
// (release-missing at the last arrival, default tier).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Clean: cooperative groups' grid.sync() in a loop and after it (nvcc 13 inlines it:
// atom.add.release.gpu, then ld.acquire.gpu until (old ^ now) < 0).
__global__ void cg_grid_sync_loop(float* a, float* b, int steps) {
  cg::grid_group g = cg::this_grid();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = gridDim.x * blockDim.x;
  for (int s = 0; s < steps; ++s) {
    a[i] = b[(i + 1) % n] + 1.0f;
    g.sync();
    b[i] = a[(i + 1) % n] * 2.0f;
    g.sync();
  }
  a[i] += b[(i + 3) % n];
}

// The cuDNN form: volatile loads, membar.gl, a relaxed atomicAdd with the master's 0x80000001 - n.
__device__ __forceinline__ void sign_bit_sync(unsigned* bar, unsigned nblocks) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    __threadfence();
    atomicAdd(bar, blockIdx.x == 0 ? 0x80000001u - nblocks : 1u);
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {
    }
    __threadfence();
  }
  __syncthreads();
}

// Clean: used in a loop and once after it.
__global__ void sign_bit_loop(unsigned* bar, float* a, float* b, int steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = gridDim.x * blockDim.x;
  for (int s = 0; s < steps; ++s) {
    a[i] = b[(i + 1) % n] + 1.0f;
    sign_bit_sync(bar, gridDim.x);
    b[i] = a[(i + 1) % n] * 2.0f;
  }
  sign_bit_sync(bar, gridDim.x);
  a[i] += b[(i + 3) % n];
}

// cuDNN's last barrier: thread 0 arrives after its own fence, with no __syncthreads() to gather
// the block's writes, and nothing after its wait reads them. The wait that reads them is the
// loop's, another use: of this arrival's phase only if blocks reach different barrier sites at the
// same count of uses. Undecided: strict tier ("other-phase").
__global__ void sign_bit_last_ungathered(unsigned* bar, float* a, float* b, int steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = gridDim.x * blockDim.x;
  for (int s = 0; s < steps; ++s) {
    b[i] = a[(i + 1) % n] * 2.0f;
    sign_bit_sync(bar, gridDim.x);
    a[i] = b[(i + 1) % n] + 1.0f;
  }
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    __threadfence();
    atomicAdd(bar, blockIdx.x == 0 ? 0x80000001u - gridDim.x : 1u);  // expect-strict: release-missing
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {
    }
  }
}

// Broken twin: the same last barrier, and after its own wait the block reads the other blocks'
// data: the other threads' writes reach the arrival through thread 0's fence alone.
__global__ void sign_bit_last_ungathered_read(unsigned* bar, float* a, float* b, float* out, int steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = gridDim.x * blockDim.x;
  for (int s = 0; s < steps; ++s) {
    b[i] = a[(i + 1) % n] * 2.0f;
    sign_bit_sync(bar, gridDim.x);
    a[i] = b[(i + 1) % n] + 1.0f;
  }
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    __threadfence();
    atomicAdd(bar, blockIdx.x == 0 ? 0x80000001u - gridDim.x : 1u);  // expect: release-missing
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {
    }
    __threadfence();
  }
  __syncthreads();
  out[i] = a[(i + 5) % n];
}

// Broken: the master adds 1 like the others: no phase flip, a fixed count.
__device__ __forceinline__ void no_flip_sync(unsigned* bar) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    __threadfence();
    atomicAdd(bar, 1u);  // expect: barrier-reuse
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {
    }
    __threadfence();
  }
  __syncthreads();
}
__global__ void no_flip_loop(unsigned* bar, float* a, float* b, int steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = gridDim.x * blockDim.x;
  for (int s = 0; s < steps; ++s) {
    a[i] = b[(i + 1) % n] + 1.0f;
    no_flip_sync(bar);
    b[i] = a[(i + 1) % n] * 2.0f;
  }
}

// Broken: the master adds 0x80000000 - n: a use adds 0x7fffffff, bit 31 does not flip once per use.
__device__ __forceinline__ void off_by_one_sync(unsigned* bar, unsigned nblocks) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    __threadfence();
    atomicAdd(bar, blockIdx.x == 0 ? 0x80000000u - nblocks : 1u);  // expect: barrier-reuse
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {
    }
    __threadfence();
  }
  __syncthreads();
}
__global__ void off_by_one_loop(unsigned* bar, float* a, float* b, int steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = gridDim.x * blockDim.x;
  for (int s = 0; s < steps; ++s) {
    a[i] = b[(i + 1) % n] + 1.0f;
    off_by_one_sync(bar, gridDim.x);
    b[i] = a[(i + 1) % n] * 2.0f;
  }
}

// Broken: no membar.gl before the arrival.
__device__ __forceinline__ void no_release_sync(unsigned* bar, unsigned nblocks) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    atomicAdd(bar, blockIdx.x == 0 ? 0x80000001u - nblocks : 1u);  // expect: release-missing
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {
    }
    __threadfence();
  }
  __syncthreads();
}
__global__ void no_release_loop(unsigned* bar, float* a, float* b, int steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = gridDim.x * blockDim.x;
  for (int s = 0; s < steps; ++s) {
    a[i] = b[(i + 1) % n] + 1.0f;
    no_release_sync(bar, gridDim.x);
    b[i] = a[(i + 1) % n] * 2.0f;
  }
}

// Broken: no fence after the wait.
__device__ __forceinline__ void no_acquire_sync(unsigned* bar, unsigned nblocks) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    __threadfence();
    atomicAdd(bar, blockIdx.x == 0 ? 0x80000001u - nblocks : 1u);
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {  // expect: acquire-missing
    }
  }
  __syncthreads();
}
__global__ void no_acquire_loop(unsigned* bar, float* a, float* b, int steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = gridDim.x * blockDim.x;
  for (int s = 0; s < steps; ++s) {
    a[i] = b[(i + 1) % n] + 1.0f;
    no_acquire_sync(bar, gridDim.x);
    b[i] = a[(i + 1) % n] * 2.0f;
  }
}
