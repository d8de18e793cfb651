// RUN: %fenceline check --verify --arch sm_100a --checks=-*,tcgen05-wait %s
// RUN: %fenceline check --strict --verify --arch sm_100a --checks=-*,tcgen05-wait %s
// Fixed false positive (docs/real-code.md, "Corpus 6"): shape of CUTLASS's Blackwell GEMM epilogue
// (example 70, gemm_sm100_2sm). The epilogue warps read each accumulator subtile from tensor memory
// with tcgen05.ld, convert it, meet at a named barrier before one thread stores the subtile, give the
// C stage they read back to its loader with an mbarrier arrive, and wait for their tensor-memory loads
// (tcgen05.wait::ld) only once, before the arrive that gives the accumulator back to the MMA warp.
// Neither the named barrier nor the C-stage arrive hands tensor memory to a thread that overwrites or
// frees it: tcgen05-wait must report neither. The broken twins below are reported: the same epilogue
// without its wait before the accumulator arrive (the walk goes on past the named barrier), and a
// named barrier after which another warp frees the tensor memory.
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)), "r"(parity)
      : "memory");
}
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ uint32_t tmem_load(uint32_t taddr) {
  uint32_t v;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(v) : "r"(taddr) : "memory");
  return v;
}
__device__ __forceinline__ void tmem_wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void umma(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc) {
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
               "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem),
               "l"(a), "l"(b), "r"(idesc)
               : "memory");
}
__device__ __forceinline__ void umma_commit(uint64_t* bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem(bar))
               : "memory");
}

struct Shared {
  alignas(8) uint64_t acc_full, acc_empty, c_full, c_empty, tmem_free;
  uint32_t tmem_base;
  float c_stage[128];
  float d_stage[128];
};

__device__ void init(Shared& s) {
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&s.acc_full)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" ::"r"(smem(&s.acc_empty)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&s.c_full)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" ::"r"(smem(&s.c_empty)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" ::"r"(smem(&s.tmem_free)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (threadIdx.x < 32)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(smem(&s.tmem_base))
                 : "memory");
  __syncthreads();
}

// Warp 0: allocator and MMA issuer; warp 1: C loader; warps 4-7: epilogue.
template <bool kWaitBeforeAccRelease>
__device__ void gemm_epilogue(const float* c, float* d, uint64_t a, uint64_t b, uint32_t idesc, int tiles) {
  __shared__ Shared s;
  init(s);
  const uint32_t warp = threadIdx.x / 32, tmem = s.tmem_base;
  if (warp == 0) {
    for (int t = 0; t < tiles; ++t) {
      wait_parity(&s.acc_empty, (t & 1) ^ 1);
      if (threadIdx.x == 0) {
        umma(tmem, a, b, idesc);
        umma_commit(&s.acc_full);
      }
    }
    wait_parity(&s.tmem_free, 0);
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(tmem) : "memory");
  } else if (warp == 1) {
    for (int t = 0; t < tiles; ++t) {
      wait_parity(&s.c_empty, (t & 1) ^ 1);
      s.c_stage[threadIdx.x % 32] = c[t * 32 + threadIdx.x % 32];
      arrive(&s.c_full);
    }
  } else if (warp >= 4) {
    const uint32_t e = threadIdx.x - 128;
    for (int t = 0; t < tiles; ++t) {
      wait_parity(&s.acc_full, t & 1);
      wait_parity(&s.c_full, t & 1);
      uint32_t v = tmem_load(tmem + e);
      s.d_stage[e] = __uint_as_float(v) + s.c_stage[e % 32];
      named_barrier_sync(1, 128);
      if (e == 0) d[t] = s.d_stage[0] + s.d_stage[127];
      arrive(&s.c_empty);  // gives the C stage back: no tensor memory
      if (kWaitBeforeAccRelease) tmem_wait_ld();
      arrive(&s.acc_empty);  // the MMA warp overwrites the accumulator
    }
    arrive(&s.tmem_free);
  }
}

__global__ void __launch_bounds__(256) cutlass_epilogue(const float* c, float* d, uint64_t a, uint64_t b,
                                                        uint32_t idesc, int tiles) {
  gemm_epilogue<true>(c, d, a, b, idesc, tiles);
}

__global__ void __launch_bounds__(256) epilogue_without_wait(const float* c, float* d, uint64_t a, uint64_t b,
                                                             uint32_t idesc, int tiles) {
  gemm_epilogue<false>(c, d, a, b, idesc, tiles);  // expect-strict: tcgen05-wait
}

// Broken: every warp loads its lane quarter, meets at __syncthreads(), and warp 0 frees the tensor
// memory with no tcgen05.wait::ld anywhere.
__global__ void __launch_bounds__(128) barrier_then_dealloc(float* out) {
  __shared__ uint32_t tmem_base;
  if (threadIdx.x < 32)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(smem(&tmem_base))
                 : "memory");
  __syncthreads();
  uint32_t v = tmem_load(tmem_base + threadIdx.x);
  out[threadIdx.x] = __uint_as_float(v);
  __syncthreads();  // expect-strict: tcgen05-wait
  if (threadIdx.x < 32) {
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(tmem_base) : "memory");
  }
}
