// Shape 6 (one warp frees tensor memory other warps may still access),
// TIRx kernels, GDN prefill on SM100: https://github.com/mlc-ai/TIRx-kernels/pull/19
// (merged). "warp 4 could reach tcgen05.dealloc after its own work loop
// while another CG1 warp still had TMEM accesses in flight. The deallocation
// instruction synchronizes its issuing warp, so the four CG1 warps need an
// explicit named-barrier rendezvous first." The fix synchronizes warps 4-7
// (a named barrier of 128 threads) before warp 4 relinquishes and frees the
// tensor memory. Our kernel: warps 4-7 each load their lane quarter of the
// accumulator with tcgen05.ld and wait for it; warp 4 then frees the tensor
// memory, with (fixed) or without (broken) the named barrier; the fixed
// variant also puts tcgen05.fence around the barrier so that it is clean
// whichever rule the lead adopts for release/acquire synchronization.
// Check: tmem-dealloc-race.
// RUN: %fenceline check --arch sm_100a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

template <bool kRendezvous>
__device__ __forceinline__ void cg1_epilogue(const uint32_t* tmem_slot, float* out, int tiles) {
  const unsigned warp = threadIdx.x / 32;
  if (warp < 4 || warp > 7) return;
  const uint32_t tmem = *tmem_slot;
  float acc = 0.f;
  for (int t = 0; t < tiles; ++t) {
    uint32_t v;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];"
                 : "=r"(v)
                 : "r"(tmem + ((warp % 4) * 32 << 16) + t)
                 : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    acc += __uint_as_float(v);
  }
  out[blockIdx.x * 128 + threadIdx.x - 128] = acc;
  if (kRendezvous) {
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    asm volatile("bar.sync 1, 128;" ::: "memory");  // warps 4-7
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  }
  if (warp == 4) {
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" ::"r"(tmem) : "memory");  // expect: tmem-dealloc-race
  }
}

template <bool kRendezvous>
__device__ __forceinline__ void kernel_body(float* out, int tiles) {
  __shared__ uint32_t tmem_slot;
  if (threadIdx.x / 32 == 4)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;" ::"r"(smem(&tmem_slot))
                 : "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  cg1_epilogue<kRendezvous>(&tmem_slot, out, tiles);
}

__global__ void __launch_bounds__(256) dealloc_without_rendezvous(float* out, int tiles) {
  kernel_body<false>(out, tiles);
}
__global__ void __launch_bounds__(256) dealloc_after_rendezvous(float* out, int tiles) { kernel_body<true>(out, tiles); }
