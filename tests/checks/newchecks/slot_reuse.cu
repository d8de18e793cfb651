// slot-reuse: a shared-memory record that one role writes and publishes with
// an mbarrier arrive, and other threads read after waiting on that barrier,
// is written again with nothing telling the writer that the readers are done
// (no "empty" barrier the readers arrive on and the writer waits at). Each
// broken kernel has a fixed twin with the full/empty pair; the kernels after
// them (one thread set that writes and reads around __syncthreads(), a record
// written once, an empty wait inside a noinline helper) stay silent.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// 1. Inline asm: one producer thread fills a 4-word work item per round; the
//    consumer warpgroup (warps 4-7) waits and reads it.
__device__ __forceinline__ void asm_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void asm_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tLAB_WAIT:\n\t"
      "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra LAB_WAIT;\n\t}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}

template <bool kEmpty>
__device__ __forceinline__ void work_items_asm(const int4* items, float* out, int rounds) {
  __shared__ int4 item;
  __shared__ alignas(8) uint64_t full, empty;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full)));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" ::"r"(smem(&empty)));
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int r = 0; r < rounds; ++r) {
      if (kEmpty && r > 0) asm_wait(&empty, (r - 1) & 1);
      item = items[blockIdx.x * rounds + r];  // expect: slot-reuse
      asm_arrive(&full);
    }
  } else if (threadIdx.x >= 128 && threadIdx.x < 256) {
    float acc = 0.f;
    for (int r = 0; r < rounds; ++r) {
      asm_wait(&full, r & 1);
      const int4 w = item;
      if (kEmpty) asm_arrive(&empty);
      acc += static_cast<float>(w.x + w.y * w.z - w.w);
    }
    out[blockIdx.x * 128 + threadIdx.x - 128] = acc;
  }
}
__global__ void items_asm_one_way(const int4* items, float* out, int rounds) {
  work_items_asm<false>(items, out, rounds);
}
__global__ void items_asm_full_empty(const int4* items, float* out, int rounds) {
  work_items_asm<true>(items, out, rounds);
}

// 2. CuTe-style barrier objects (a struct with arrive()/wait()), a whole warp
//    writing one entry per lane, then __syncwarp() and an elected arrive.
struct Barrier {
  uint64_t word;
  __device__ void init(uint32_t count) { cuda::ptx::mbarrier_init(&word, count); }
  __device__ void arrive() { (void)cuda::ptx::mbarrier_arrive(&word); }
  __device__ void wait(uint32_t phase) {
    while (!cuda::ptx::mbarrier_try_wait_parity(&word, phase)) {
    }
  }
};
struct Mailbox {
  float offsets[32];
  Barrier ready, done;
};

template <bool kDone>
__device__ __forceinline__ void mailbox_warp(const float* table, float* out, int rounds) {
  __shared__ Mailbox box;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    box.ready.init(1);
    box.done.init(2);  // one arrive per reading warp
  }
  __syncthreads();
  if (warp == 0) {
    for (int r = 0; r < rounds; ++r) {
      if (kDone && r > 0) box.done.wait((r - 1) & 1);
      box.offsets[lane] = table[r * 32 + lane];  // expect: slot-reuse
      __syncwarp();
      if (lane == 0) box.ready.arrive();
    }
  } else if (warp == 1 || warp == 2) {
    float acc = 0.f;
    for (int r = 0; r < rounds; ++r) {
      box.ready.wait(r & 1);
      acc += box.offsets[(lane + warp) % 32];
      __syncwarp();
      if (kDone && lane == 0) box.done.arrive();
    }
    out[blockIdx.x * 64 + threadIdx.x - 32] = acc;
  }
}
__global__ void mailbox_warp_one_way(const float* table, float* out, int rounds) {
  mailbox_warp<false>(table, out, rounds);
}
__global__ void mailbox_warp_ready_done(const float* table, float* out, int rounds) {
  mailbox_warp<true>(table, out, rounds);
}

// 3. Straight-line code: two rounds published back to back (no loop).
template <bool kEmpty>
__device__ __forceinline__ void two_rounds(const int* src, int* out) {
  __shared__ int slot;
  __shared__ alignas(8) uint64_t full, empty;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&full, 1);
    cuda::ptx::mbarrier_init(&empty, 32);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    slot = src[0];
    (void)cuda::ptx::mbarrier_arrive(&full);
    if (kEmpty) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&empty, 0)) {
      }
    }
    slot = src[1];  // expect: slot-reuse
    (void)cuda::ptx::mbarrier_arrive(&full);
  } else if (threadIdx.x >= 32 && threadIdx.x < 64) {
    while (!cuda::ptx::mbarrier_try_wait_parity(&full, 0)) {
    }
    const int a = slot;
    if (kEmpty) (void)cuda::ptx::mbarrier_arrive(&empty);
    while (!cuda::ptx::mbarrier_try_wait_parity(&full, 1)) {
    }
    out[threadIdx.x] = a + slot;
  }
}
__global__ void two_rounds_one_way(const int* src, int* out) { two_rounds<false>(src, out); }
__global__ void two_rounds_with_empty(const int* src, int* out) { two_rounds<true>(src, out); }

// 4. A noinline publish helper (fenceline inlines it): the write is in the helper.
__device__ __noinline__ void publish(int2* record, uint64_t* ready, const int2* src, int r) {
  *record = src[r];  // expect: slot-reuse
  (void)cuda::ptx::mbarrier_arrive(ready);
}
__device__ __noinline__ void publish_when_free(int2* record, uint64_t* ready, uint64_t* free_bar, const int2* src,
                                               int r) {
  if (r > 0) {
    while (!cuda::ptx::mbarrier_try_wait_parity(free_bar, (r - 1) & 1)) {
    }
  }
  *record = src[r];
  (void)cuda::ptx::mbarrier_arrive(ready);
}
template <bool kFree>
__device__ __forceinline__ void helper_rounds(const int2* src, float* out, int rounds) {
  __shared__ int2 record;
  __shared__ alignas(8) uint64_t ready, free_bar;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&ready, 1);
    cuda::ptx::mbarrier_init(&free_bar, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int r = 0; r < rounds; ++r) {
      if (kFree) publish_when_free(&record, &ready, &free_bar, src, r);
      else publish(&record, &ready, src, r);
    }
  } else if (threadIdx.x >= 32 && threadIdx.x < 64) {
    float acc = 0.f;
    for (int r = 0; r < rounds; ++r) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&ready, r & 1)) {
      }
      const int2 v = record;
      __syncwarp();
      if (kFree && threadIdx.x == 32) (void)cuda::ptx::mbarrier_arrive(&free_bar);
      acc += static_cast<float>(v.x * v.y);
    }
    out[threadIdx.x - 32] = acc;
  }
}
__global__ void helper_one_way(const int2* src, float* out, int rounds) { helper_rounds<false>(src, out, rounds); }
__global__ void helper_when_free(const int2* src, float* out, int rounds) { helper_rounds<true>(src, out, rounds); }

// Silent: one thread set writes and reads, with __syncthreads() between rounds.
__global__ void block_rounds(const int* src, int* out, int rounds) {
  __shared__ int slot;
  __shared__ alignas(8) uint64_t ready;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&ready, 1);
  __syncthreads();
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) {
      slot = src[r];
      (void)cuda::ptx::mbarrier_arrive(&ready);
    }
    while (!cuda::ptx::mbarrier_try_wait_parity(&ready, r & 1)) {
    }
    acc += slot;
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}

// Silent: the record is written once, before the rounds.
__global__ void written_once(const int* src, float* out, int rounds) {
  __shared__ int scale;
  __shared__ alignas(8) uint64_t ready;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&ready, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    scale = src[0];
    (void)cuda::ptx::mbarrier_arrive(&ready);
  } else if (threadIdx.x >= 32) {
    while (!cuda::ptx::mbarrier_try_wait_parity(&ready, 0)) {
    }
    float acc = 0.f;
    for (int r = 0; r < rounds; ++r) acc += scale * r;
    out[threadIdx.x] = acc;
  }
}
