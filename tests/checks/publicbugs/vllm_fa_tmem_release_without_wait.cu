// Shape 6 (tensor-memory loads still in flight at a hand-off), vLLM's
// FlashAttention fork, SM100 head-dim-256 2-CTA forward:
// https://github.com/vllm-project/flash-attention/pull/182 (merged).
// The correction warps read the O tile (and the softmax statistics) from
// tensor memory with tcgen05.ld and then release the tensor-memory slot to
// the MMA warp, which overwrites it. Three releases skipped
// tcgen05.wait::ld: "a register dependency does not imply that a dependee
// instruction's memory accesses will be performed before a dependent
// instruction's memory accesses ... tcgen05.wait::ld must be used", and the
// required producer pattern is tcgen05.ld -> tcgen05.wait::ld ->
// mbarrier.arrive (the PR quotes PTX ISA 9.7.17.6.4.4/.5). The fix adds the
// wait (CuTe's fence_view_async_tmem_load) before each release. Our kernel:
// four tcgen05.ld per thread, the release as an mbarrier arrive, the MMA
// warp waiting on it and issuing tcgen05.mma into the same columns.
// RUN: %fenceline check --arch sm_100a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)), "r"(parity)
      : "memory");
}
__device__ __forceinline__ void fence_view_async_tmem_load() {
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
}

template <bool kWait>
__device__ __forceinline__ void correction_epilogue(uint32_t tmem_o, uint64_t* o_empty, float* out) {
  float o[4];
  for (int i = 0; i < 4; ++i) {
    uint32_t v;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(v) : "r"(tmem_o + i) : "memory");
    o[i] = __uint_as_float(v);
  }
  if (kWait) fence_view_async_tmem_load();
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(o_empty)) : "memory");  // expect: tcgen05-wait
  for (int i = 0; i < 4; ++i) out[(blockIdx.x * blockDim.x + threadIdx.x) * 4 + i] = o[i];
}

template <bool kWait>
__device__ __forceinline__ void fmha_tail(uint32_t tmem_o, uint64_t a, uint64_t b, uint32_t idesc, float* out) {
  __shared__ alignas(8) uint64_t o_empty;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;\n\tfence.mbarrier_init.release.cluster;" ::"r"(
                     smem(&o_empty))
                 : "memory");
  __syncthreads();
  if (threadIdx.x < 128) {
    correction_epilogue<kWait>(tmem_o, &o_empty, out);
  } else if (threadIdx.x == 128) {  // the MMA warp's elected thread
    wait_parity(&o_empty, 0);
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 0, 0;\n\t"
                 "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem_o),
                 "l"(a), "l"(b), "r"(idesc)
                 : "memory");
  }
}

__global__ void release_o_without_wait(uint32_t tmem_o, uint64_t a, uint64_t b, uint32_t idesc, float* out) {
  fmha_tail<false>(tmem_o, a, b, idesc, out);
}
__global__ void release_o_after_wait(uint32_t tmem_o, uint64_t a, uint64_t b, uint32_t idesc, float* out) {
  fmha_tail<true>(tmem_o, a, b, idesc, out);
}
