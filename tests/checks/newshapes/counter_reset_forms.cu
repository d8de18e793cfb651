// counter-reset (issue 30, shape 5) in more forms than counter_resets.cu:
// atomicExch resets, an identity-RMW poll, inline PTX, rounds in a loop,
// noinline helpers, and shared-memory counters and phase words rewritten by
// one thread or one lane. Each broken kernel has a fixed twin that must stay
// silent; a reset that only one block's own wait precedes (FlashInfer's
// Lamport flags: block 0 waits for every arrival, then stores 0) is silent.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>

using device_atomic = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;

// 1. The last arriver takes the count back with atomicExch(count, 0); the
// waiters poll with atomicAdd(count, 0) (an identity RMW) in rounds.
__global__ void exch_reset_by_last(float* data, unsigned* count, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    data[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      if (atomicAdd(count, 1u) == gridDim.x - 1) {
        atomicExch(count, 0u);  // expect: counter-reset
      } else {
        while (atomicAdd(count, 0u) < gridDim.x) {
        }
      }
      __threadfence();
    }
    __syncthreads();
    data[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x] *= 0.5f;
  }
}

// 2. Every block resets after its own wait, in inline PTX, through a noinline helper.
__device__ __noinline__ void ptx_barrier_every_block_resets(unsigned* count) {
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned seen;
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(count) : "memory");
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(count) : "memory");
    } while (seen != gridDim.x);
    asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(count) : "memory");  // expect: counter-reset
  }
  __syncthreads();
}
__global__ void ptx_every_block_resets(float* data, unsigned* count) {
  data[blockIdx.x * blockDim.x + threadIdx.x] = 3.0f;
  ptx_barrier_every_block_resets(count);
  data[((blockIdx.x + 2) % gridDim.x) * blockDim.x + threadIdx.x] += 1.0f;
}

// Fixed: only block 0 waits for every arrival, then resets the counter for
// the next launch (no other block polls it).
__global__ void block0_waits_then_resets(float* data, unsigned* count, unsigned* done) {
  data[blockIdx.x * blockDim.x + threadIdx.x] = 4.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    device_atomic c(*count);
    c.fetch_add(1u, cuda::memory_order_release);
    if (blockIdx.x == 0) {
      while (c.load(cuda::memory_order_acquire) < gridDim.x) {
      }
      c.store(0u, cuda::memory_order_relaxed);
      cuda::atomic_ref<unsigned, cuda::thread_scope_system> d(*done);
      d.store(1u, cuda::memory_order_release);
    }
  }
}

// Fixed twin of 1: the last arriver resets the count and bumps a generation
// that only grows; the waiters poll the generation.
__global__ void exch_reset_generation_bumped(float* data, unsigned* count, unsigned* generation, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    data[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      device_atomic g(*generation);
      const unsigned gen = g.load(cuda::memory_order_acquire);
      if (device_atomic(*count).fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1) {
        atomicExch(count, 0u);
        g.store(gen + 1, cuda::memory_order_release);
      } else {
        while (g.load(cuda::memory_order_acquire) == gen) {
        }
      }
    }
    __syncthreads();
    data[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x] *= 0.5f;
  }
}

// 3. The generation word is exchanged to 1 (not bumped) by the last arriver.
__global__ void generation_set_to_one(float* data, unsigned* count, unsigned* generation, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    data[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      device_atomic g(*generation);
      const unsigned gen = g.load(cuda::memory_order_acquire);
      device_atomic c(*count);
      if (c.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1) {
        c.store(0u, cuda::memory_order_relaxed);
        g.exchange(1u, cuda::memory_order_release);  // expect: counter-reset
      } else {
        while (g.load(cuda::memory_order_acquire) == gen) {
        }
      }
    }
    __syncthreads();
    data[((blockIdx.x + 1) % gridDim.x) * blockDim.x + threadIdx.x] *= 0.5f;
  }
}

// 4. Shared memory: thread 0 resets a block-wide append counter at the top
// of each round while other threads may still read the previous round's
// count. (Broken and fixed twins on lines of their own: one line reported by
// two instantiations would be one finding, and the fixed twin's unseen.)
__global__ void shared_reset_races_readers(const int* in, int* out, int rounds) {
  __shared__ int produced;
  __shared__ int items[256];
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) produced = 0;  // expect: counter-reset
    __syncthreads();
    const int v = in[r * blockDim.x + threadIdx.x];
    if (v > 0) items[atomicAdd(&produced, 1)] = v;
    __syncthreads();
    const int n = *(volatile int*)&produced;
    if (threadIdx.x < n) out[r * blockDim.x + threadIdx.x] = items[threadIdx.x];
  }
}
__global__ void shared_reset_after_barrier(const int* in, int* out, int rounds) {
  __shared__ int produced;
  __shared__ int items[256];
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) produced = 0;
    __syncthreads();
    const int v = in[r * blockDim.x + threadIdx.x];
    if (v > 0) items[atomicAdd(&produced, 1)] = v;
    __syncthreads();
    const int n = *(volatile int*)&produced;
    if (threadIdx.x < n) out[r * blockDim.x + threadIdx.x] = items[threadIdx.x];
    __syncthreads();
  }
}

// 5. Shared memory, one lane per warp: lane 0 advances a per-warp phase
// word (computed from its own read) before the other lanes have read it.
__global__ void __launch_bounds__(256) warp_phase_races_readers(int* out, int rounds) {
  __shared__ unsigned phase[8];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) phase[warp] = 0;
  __syncwarp();
  for (int r = 0; r < rounds; ++r) {
    const unsigned p = *(volatile unsigned*)&phase[warp];
    out[r * blockDim.x + threadIdx.x] = int(p);
    if (lane == 0) *(volatile unsigned*)&phase[warp] = p + 1;  // expect: counter-reset
    __syncwarp();
  }
}
__global__ void __launch_bounds__(256) warp_phase_after_syncwarp(int* out, int rounds) {
  __shared__ unsigned phase[8];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) phase[warp] = 0;
  __syncwarp();
  for (int r = 0; r < rounds; ++r) {
    const unsigned p = *(volatile unsigned*)&phase[warp];
    out[r * blockDim.x + threadIdx.x] = int(p);
    __syncwarp();
    if (lane == 0) *(volatile unsigned*)&phase[warp] = p + 1;
    __syncwarp();
  }
}

// Fixed (vLLM's Lamport all-gather shape): the global thread 0 alone waits
// for every block's arrival and resets the counter for the next launch; the
// poll's guard tests the block's position, so no other block polls.
__global__ void global_thread0_waits_then_resets(float* data, unsigned* epochs) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  data[tid] = 5.0f;
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&epochs[1], 1u);
  if (tid == 0) {
    while (*(volatile unsigned*)&epochs[1] < gridDim.x) {
    }
    epochs[0] += 1;
    epochs[1] = 0;
  }
}

// Fixed (a block reduction's slots): lane 0 of warp 0 writes slot 0 while the
// other lanes of warp 0 read their own slots (slot = lane): not one word for
// the writer and the readers.
__global__ void __launch_bounds__(256) reduction_slots(const float* in, float* out) {
  __shared__ float partial[8];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < 8 ? partial[lane] : 0.0f;
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
    if (lane == 0) partial[0] = v;
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = partial[0];
}
