// RUN: %fenceline check --verify --arch sm_90a %s
// release-missing and the partner model: writes before a signal need a
// release only if some read after a wait on that signal may read them. A
// "slot consumed" signal (a head index stored after reading a slot, whose
// partner then overwrites the slot and never reads the consumer's other
// outputs) does not publish the consumer's output writes. A counter nobody
// polls (a private expected-count bumped with a relaxed atomic next to a
// polled inbound flag of the same struct) is not a signal at all.
#include <cuda/atomic>

constexpr int kDepth = 4;

__device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release_gpu(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_relaxed_gpu(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// A single-producer single-consumer ring between two blocks, its indices in
// one struct.
struct Ring {
  unsigned head;  // slots consumed (written by the consumer)
  unsigned pad0[31];
  unsigned tail;  // slots produced (written by the producer)
  unsigned pad1[31];
  float slots[kDepth][128];
};

// Fixed: the consumer publishes `head` with a relaxed store after writing its
// own output. The producer, after waiting on `head`, only overwrites a slot:
// it reads nothing the consumer wrote, so the output writes need no release.
__global__ void ring_slot_consumed(Ring* ring, const float* __restrict__ in, float* out, int steps) {
  int i = threadIdx.x;
  if (blockIdx.x == 0) {
    for (int s = 0; s < steps; ++s) {
      if (i == 0)
        while (ld_acquire_gpu(&ring->head) + kDepth <= static_cast<unsigned>(s)) {
        }
      __syncthreads();
      ring->slots[s % kDepth][i] = in[s * 128 + i];
      __syncthreads();
      if (i == 0) st_release_gpu(&ring->tail, s + 1);
    }
  } else if (blockIdx.x == 1) {
    for (int s = 0; s < steps; ++s) {
      if (i == 0)
        while (ld_acquire_gpu(&ring->tail) <= static_cast<unsigned>(s)) {
        }
      __syncthreads();
      out[s * 128 + i] = ring->slots[s % kDepth][i] * 2.0f;
      __syncthreads();
      if (i == 0) st_relaxed_gpu(&ring->head, s + 1);
    }
  }
}

// Broken: the same ring, but the consumer hands a result back in a second
// array the producer reads after its wait on `head`.
struct AckRing {
  unsigned head;
  unsigned pad0[31];
  unsigned tail;
  unsigned pad1[31];
  float slots[kDepth][128];
  float acks[kDepth][128];
};

__global__ void ring_consumer_returns_result(AckRing* ring, const float* __restrict__ in, float* out, int steps) {
  int i = threadIdx.x;
  if (blockIdx.x == 0) {
    float total = 0.0f;
    for (int s = 0; s < steps; ++s) {
      if (i == 0)
        while (ld_acquire_gpu(&ring->head) + kDepth <= static_cast<unsigned>(s)) {
        }
      __syncthreads();
      if (s >= kDepth) total += ring->acks[s % kDepth][i];
      ring->slots[s % kDepth][i] = in[s * 128 + i];
      __syncthreads();
      if (i == 0) st_release_gpu(&ring->tail, s + 1);
    }
    out[i] = total;
  } else if (blockIdx.x == 1) {
    for (int s = 0; s < steps; ++s) {
      if (i == 0)
        while (ld_acquire_gpu(&ring->tail) <= static_cast<unsigned>(s)) {
        }
      __syncthreads();
      ring->acks[s % kDepth][i] = ring->slots[s % kDepth][i] * 2.0f;
      __syncthreads();
      if (i == 0) st_relaxed_gpu(&ring->head, s + 1);  // expect: release-missing
    }
  }
}

// A device semaphore as communicators keep it: the inbound flag the peer
// raises, and a private count of how many signals this block expects.
struct Semaphore {
  unsigned inbound;   // raised by the partner
  unsigned expected;  // bumped by the waiter only; nobody polls it
};

// Fixed: the relaxed increment of `expected` after writing `out` is
// bookkeeping, not a signal: no spin loop reads that word.
__global__ void semaphore_private_count(Semaphore* sems, const float* __restrict__ in, float* out) {
  Semaphore* sem = sems + blockIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> expected(sem->expected);
    unsigned target = expected.fetch_add(1, cuda::memory_order_relaxed) + 1;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> inbound(sem->inbound);
    while (inbound.load(cuda::memory_order_acquire) < target) {
    }
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] += in[threadIdx.x + 1];
}

// Broken: the same struct, but the block signals its partner through the
// polled word itself with a relaxed add after writing the data the partner
// reads.
__global__ void semaphore_relaxed_signal(Semaphore* sems, float* data, float* out) {
  Semaphore* peer = sems + (blockIdx.x ^ 1);
  Semaphore* mine = sems + blockIdx.x;
  data[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> inbound(peer->inbound);
    inbound.fetch_add(1, cuda::memory_order_relaxed);  // expect: release-missing
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> mine_in(mine->inbound);
    while (mine_in.load(cuda::memory_order_acquire) < 1) {
    }
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[(blockIdx.x ^ 1) * blockDim.x + threadIdx.x];
}
