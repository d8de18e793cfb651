// Issue 30, shape 6, more forms (tcgen05-fence, tmem-dealloc-race; sm_100a,
// compile-only): a persistent accumulator pipeline in inline asm (the MMA
// thread waits on `acc_empty`, accumulates, commits to `acc_full`; the
// epilogue warps wait on `acc_full`, load, wait for the loads and arrive on
// `acc_empty`), the load in a __noinline__ helper; a named-barrier hand-off
// (bar.arrive by the storing warps, bar.sync by the MMA warp); a hand-off
// whose before-fence sits at a later barrier (strict tier: the first barrier
// may hand over nothing); a dealloc ordered by an mbarrier the deallocating
// warp waits on (no race). Each broken form has its fixed twin, which is silent.
// RUN: %fenceline check --arch sm_100a --verify %s
// RUN: %fenceline check --strict --arch sm_100a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT_%=;\n\t}" ::"r"(smem(bar)), "r"(parity)
      : "memory");
}
__device__ __forceinline__ void mma(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc) {
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
               "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem),
               "l"(a), "l"(b), "r"(idesc)
               : "memory");
}
__device__ __forceinline__ void commit(uint64_t* bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem(bar))
               : "memory");
}
__device__ __forceinline__ void fence_before() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
__device__ __forceinline__ void fence_after() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }

// The epilogue's load of its lane quarter, waited for, in a helper that is not inlined.
__device__ __noinline__ uint32_t load_quarter(uint32_t taddr) {
  uint32_t v;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(v) : "r"(taddr) : "memory");
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  return v;
}

// 1. Persistent accumulator pipeline: warps 0-3 epilogue, thread 128 MMA.
template <bool kFences>
__device__ __forceinline__ void pipeline(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, uint32_t* out,
                                         int tiles) {
  __shared__ alignas(8) uint64_t acc_full, acc_empty;
  if (threadIdx.x == 0) {
    init(&acc_full, 1);
    init(&acc_empty, 128);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 128) {
    for (int t = 0; t < tiles; ++t) {
      wait(&acc_empty, (t & 1) ^ 1);
      if (kFences) fence_after();
      mma(tmem, a, b, idesc);  // expect-strict: tcgen05-fence
      commit(&acc_full);
    }
  } else if (threadIdx.x < 128) {
    for (int t = 0; t < tiles; ++t) {
      wait(&acc_full, t & 1);
      if (kFences) fence_after();
      out[t * 128 + threadIdx.x] = load_quarter(tmem + ((threadIdx.x / 32) * 32 << 16));  // expect-strict: tcgen05-fence
      if (kFences) fence_before();
      arrive(&acc_empty);  // expect-strict: tcgen05-fence
    }
  }
}
__global__ void __launch_bounds__(160) pipeline_unfenced(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc,
                                                         uint32_t* out, int tiles) {
  pipeline<false>(tmem, a, b, idesc, out, tiles);
}
__global__ void __launch_bounds__(160) pipeline_fenced(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc,
                                                       uint32_t* out, int tiles) {
  pipeline<true>(tmem, a, b, idesc, out, tiles);
}

// 2. Named barrier: warps 0-3 store a bias into the accumulator and arrive
// on barrier 1 (160 threads); the MMA warp (warp 4) syncs on it and accumulates.
template <bool kFences>
__device__ __forceinline__ void named_barrier_bias(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc,
                                                   uint32_t bias) {
  const unsigned warp = threadIdx.x / 32;
  if (warp < 4) {
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(tmem + (warp * 32 << 16)), "r"(bias)
                 : "memory");
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
    if (kFences) fence_before();
    asm volatile("bar.arrive 1, 160;" ::: "memory");  // expect-strict: tcgen05-fence
  } else if (warp == 4) {
    asm volatile("bar.sync 1, 160;" ::: "memory");
    if (kFences) fence_after();
    if (threadIdx.x == 128) mma(tmem, a, b, idesc);  // expect-strict: tcgen05-fence
  }
}
__global__ void __launch_bounds__(160) named_barrier_unfenced(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc,
                                                              uint32_t bias) {
  named_barrier_bias<false>(tmem, a, b, idesc, bias);
}
__global__ void __launch_bounds__(160) named_barrier_fenced(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc,
                                                            uint32_t bias) {
  named_barrier_bias<true>(tmem, a, b, idesc, bias);
}

// 3. Every thread loads and waits; a first __syncthreads() (no fence) only
// gathers a reduction of the loaded values; the hand-off to the MMA is the
// second one, fenced. Whether the first one hands tcgen05 work over cannot
// be told: strict tier.
__global__ void __launch_bounds__(128) fenced_at_the_later_barrier(uint32_t tmem, uint64_t a, uint64_t b,
                                                                   uint32_t idesc, uint32_t* partial,
                                                                   uint32_t* out) {
  partial[blockIdx.x * 128 + threadIdx.x] = load_quarter(tmem + ((threadIdx.x / 32) * 32 << 16));
  __syncthreads();  // expect-strict: tcgen05-fence
  if (threadIdx.x == 0) {
    uint32_t sum = 0;
    for (int i = 0; i < 128; ++i) sum += partial[blockIdx.x * 128 + i];
    out[blockIdx.x] = sum;
  }
  fence_before();
  __syncthreads();
  fence_after();
  if (threadIdx.x == 0) mma(tmem, a, b, idesc);
}

// 4. Teardown through an mbarrier: the epilogue warps load, fence and
// arrive on `tmem_empty`; warp 4 waits on it, fences and frees the tensor
// memory: no race (the dealloc is not reached from the loads).
__global__ void __launch_bounds__(160) dealloc_after_mbarrier(uint32_t* out) {
  __shared__ uint32_t slot;
  __shared__ alignas(8) uint64_t tmem_empty;
  const unsigned warp = threadIdx.x / 32;
  if (warp == 4)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(smem(&slot)) : "memory");
  if (threadIdx.x == 0) {
    init(&tmem_empty, 128);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  fence_before();
  __syncthreads();
  fence_after();
  const uint32_t tmem = slot;
  if (warp < 4) {
    out[threadIdx.x] = load_quarter(tmem + (warp * 32 << 16));
    fence_before();
    arrive(&tmem_empty);
  } else {
    wait(&tmem_empty, 0);
    fence_after();
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(tmem) : "memory");
  }
}
