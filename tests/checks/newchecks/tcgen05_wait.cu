// tcgen05-wait (sm_100a, compile-only: no Blackwell GPU in the lab):
// tcgen05.ld / tcgen05.st complete only at tcgen05.wait::ld / ::st, which
// must come before the thread signals that the tensor memory may be reused;
// tcgen05 work handed between threads through a thread synchronization
// (relaxed or release/acquire) needs tcgen05.fence::before_thread_sync before
// and ::after_thread_sync after it (tcgen05-fence).
// Shapes: inline asm, cuda::ptx, a CUTLASS-style allocate / MMA / epilogue
// sequence with our own wrappers.
// RUN: %fenceline check --arch sm_100a --verify %s
// RUN: %fenceline check --strict --arch sm_100a --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void init_barrier(uint64_t* bar, uint32_t count) {
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n\tfence.mbarrier_init.release.cluster;" ::"r"(smem(bar)),
                 "r"(count)
                 : "memory");
  __syncthreads();
}
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)), "r"(parity)
      : "memory");
}

// 1. Inline asm: every epilogue thread loads its accumulator column from
// tensor memory and arrives on "accumulator empty".
template <bool kWait>
__device__ __forceinline__ uint32_t drain(uint32_t taddr, uint64_t* empty) {
  uint32_t v;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(v) : "r"(taddr) : "memory");
  if (kWait) asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(empty)) : "memory");
  return v;
}
// The MMA side: once the accumulator is empty, thread 0 overwrites it.
__device__ __forceinline__ void refill_after_empty(uint32_t taddr, uint64_t* empty) {
  if (threadIdx.x != 0) return;
  wait_parity(empty, 0);
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(taddr), "r"(0u) : "memory");
}
__global__ void asm_ld_arrive_without_wait(uint32_t taddr, uint32_t* out) {
  __shared__ alignas(8) uint64_t empty;
  init_barrier(&empty, blockDim.x);
  out[threadIdx.x] = drain<false>(taddr, &empty);  // expect: tcgen05-wait
  refill_after_empty(taddr, &empty);
}
__global__ void asm_ld_wait_then_arrive(uint32_t taddr, uint32_t* out) {
  __shared__ alignas(8) uint64_t empty;
  init_barrier(&empty, blockDim.x);
  out[threadIdx.x] = drain<true>(taddr, &empty);
  refill_after_empty(taddr, &empty);
}
// The same load and arrive with nobody in the kernel waiting on `empty`: the
// thread that reuses the tensor memory is not in sight, strict tier.
__global__ void asm_ld_arrive_waiter_elsewhere(uint32_t taddr, uint32_t* out) {
  __shared__ alignas(8) uint64_t empty;
  init_barrier(&empty, blockDim.x);
  out[threadIdx.x] = drain<false>(taddr, &empty);  // expect-strict: tcgen05-wait
}

// 2. cuda::ptx: tcgen05.st, then __syncthreads() before the tensor memory
// is given back with tcgen05.dealloc.
template <bool kWait>
__device__ __forceinline__ void store_then_free(uint32_t taddr, uint32_t value) {
  uint32_t values[1] = {value};
  cuda::ptx::tcgen05_st_32x32b(taddr, values);
  if (kWait) cuda::ptx::tcgen05_wait_st();
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  if (threadIdx.x < 32) cuda::ptx::tcgen05_dealloc(cuda::ptx::cta_group_1, taddr, 32u);
}
__global__ void ptx_st_sync_without_wait(uint32_t taddr, uint32_t value) {
  store_then_free<false>(taddr, value);  // expect: tcgen05-wait
}
__global__ void ptx_st_wait_then_sync(uint32_t taddr, uint32_t value) { store_then_free<true>(taddr, value); }

// 3. CUTLASS-style: warp 0 allocates tensor memory and publishes its address
// through shared memory; one elected lane of warp 1 issues tcgen05.mma and
// commits to `full`; warps 2-5 wait and tcgen05.ld. With release/acquire
// synchronization (bar.sync, the default acquire try_wait) as with relaxed
// synchronization (barrier.cluster.arrive.relaxed, try_wait.relaxed) the
// hand-offs need tcgen05.fence::before_thread_sync / ::after_thread_sync
// (issue 30, shape 6: a release or acquire orders memory accesses, not the
// asynchronous tcgen05 operations; CUTLASS and Triton emit this shape
// without the fences, and tcgen05-fence reports it).
struct TmemAllocator {
  __device__ static void allocate(uint32_t* slot) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;" ::"r"(smem(slot)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
};
__device__ __forceinline__ void umma_bf16(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc) {
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
               "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem),
               "l"(a), "l"(b), "r"(idesc)
               : "memory");
}
__device__ __forceinline__ void umma_arrive(uint64_t* bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem(bar))
               : "memory");
}
__device__ __forceinline__ bool elect_one() {
  uint32_t elected;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(elected));
  return elected != 0;
}
__device__ __forceinline__ void cluster_sync_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}
__device__ __forceinline__ void wait_parity_relaxed(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)), "r"(parity)
      : "memory");
}

// Release/acquire hand-offs, no tcgen05.fence: the alloc -> __syncthreads()
// -> MMA and the commit -> wait -> tcgen05.ld hand-offs draw tcgen05-fence.
__global__ void cutlass_style_release_acquire(uint64_t a, uint64_t b, uint32_t idesc, uint32_t* out) {
  __shared__ uint32_t tmem_slot;
  __shared__ alignas(8) uint64_t full;
  init_barrier(&full, 1);
  const unsigned warp = threadIdx.x / 32;
  if (warp == 0) TmemAllocator::allocate(&tmem_slot);
  __syncthreads();  // expect-strict: tcgen05-fence
  const uint32_t tmem = tmem_slot;
  if (warp == 1) {
    if (elect_one()) {
      umma_bf16(tmem, a, b, idesc);  // expect-strict: tcgen05-fence
      umma_arrive(&full);
    }
  } else if (warp >= 2) {
    wait_parity(&full, 0);
    uint32_t v[1];
    cuda::ptx::tcgen05_ld_32x32b(v, tmem + ((warp % 4) * 32 << 16));  // expect-strict: tcgen05-fence
    cuda::ptx::tcgen05_wait_ld();
    out[threadIdx.x] = v[0];
  }
}

template <bool kFences>
__device__ __forceinline__ void relaxed_pipeline(uint64_t a, uint64_t b, uint32_t idesc, uint32_t* out) {
  __shared__ uint32_t tmem_slot;
  __shared__ alignas(8) uint64_t full;
  init_barrier(&full, 1);
  const unsigned warp = threadIdx.x / 32;
  if (warp == 0) TmemAllocator::allocate(&tmem_slot);
  if (kFences) cuda::ptx::tcgen05_fence_before_thread_sync();
  cluster_sync_relaxed();  // expect: tcgen05-fence
  if (kFences) cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = tmem_slot;
  if (warp == 1) {
    if (elect_one()) {
      umma_bf16(tmem, a, b, idesc);  // expect: tcgen05-fence
      umma_arrive(&full);
    }
  } else if (warp >= 2) {
    wait_parity_relaxed(&full, 0);
    if (kFences) cuda::ptx::tcgen05_fence_after_thread_sync();
    uint32_t v[1];
    cuda::ptx::tcgen05_ld_32x32b(v, tmem + ((warp % 4) * 32 << 16));  // expect: tcgen05-fence
    cuda::ptx::tcgen05_wait_ld();
    out[threadIdx.x] = v[0];
  }
}
__global__ void __cluster_dims__(1, 1, 1) relaxed_handoff_without_fences(uint64_t a, uint64_t b, uint32_t idesc,
                                                                          uint32_t* out) {
  relaxed_pipeline<false>(a, b, idesc, out);  // the three findings are on the template's lines
}
__global__ void __cluster_dims__(1, 1, 1) relaxed_handoff_fenced(uint64_t a, uint64_t b, uint32_t idesc, uint32_t* out) {
  relaxed_pipeline<true>(a, b, idesc, out);
}
