// Shape 6 (tensor-memory ordering across threads), TileLang SM100 GEMM
// examples: https://github.com/tile-ai/tilelang/pull/1980 (merged, "[BugFix]
// Add missing fences in GEMM SM100 examples"): the PR adds the intrinsics
// tcgen05_before_thread_sync / tcgen05_after_thread_sync and uses them in the
// examples. The shape of such a kernel: warp 0 allocates tensor memory and a
// __syncthreads() publishes the address; one thread issues tcgen05.mma and
// commits it to an mbarrier; every thread waits on the mbarrier (default
// acquire) and reads the accumulator with tcgen05.ld; a __syncthreads() then
// lets warp 0 free the tensor memory. Broken: no tcgen05.fence around these
// thread synchronizations. Fixed: ::before_thread_sync before each
// synchronization that hands tcgen05 work over, ::after_thread_sync after
// each one that receives it. The sites in our kernel are ours (the record
// names the intrinsics, not the lines). Expectations follow tcgen05-wait's
// placement: a missing ::before_thread_sync at the synchronization, a
// missing ::after_thread_sync at the tcgen05 operation after it.
// Check: tcgen05-fence (release/acquire synchronization needs the fences too).
// RUN: %fenceline check --arch sm_100a --verify %s
// RUN: %fenceline check --strict --arch sm_100a --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

template <bool kFences>
__device__ __forceinline__ void gemm_tile(uint64_t a_desc, uint64_t b_desc, uint32_t idesc, float* out) {
  __shared__ uint32_t tmem_slot;
  __shared__ alignas(8) uint64_t mma_done;
  const unsigned warp = threadIdx.x / 32;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&mma_done, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  if (warp == 0) {
    cuda::ptx::tcgen05_alloc(cuda::ptx::cta_group_1, &tmem_slot, 128);
    cuda::ptx::tcgen05_relinquish_alloc_permit(cuda::ptx::cta_group_1);
  }
  if (kFences) cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();  // expect-strict: tcgen05-fence
  if (kFences) cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = tmem_slot;
  if (threadIdx.x == 0) {
    cuda::ptx::tcgen05_mma(cuda::ptx::kind_f16, cuda::ptx::cta_group_1, tmem, a_desc, b_desc, idesc, false);  // expect-strict: tcgen05-fence
    cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &mma_done);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&mma_done, 0)) {
  }
  if (kFences) cuda::ptx::tcgen05_fence_after_thread_sync();
  uint32_t acc[1];
  cuda::ptx::tcgen05_ld_32x32b(acc, tmem + ((warp % 4) * 32 << 16));  // expect-strict: tcgen05-fence
  cuda::ptx::tcgen05_wait_ld();
  out[blockIdx.x * blockDim.x + threadIdx.x] = __uint_as_float(acc[0]);
  if (kFences) cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();  // expect-strict: tcgen05-fence
  if (kFences) cuda::ptx::tcgen05_fence_after_thread_sync();
  if (warp == 0) cuda::ptx::tcgen05_dealloc(cuda::ptx::cta_group_1, tmem, 128);  // expect-strict: tcgen05-fence
}

__global__ void gemm_tile_no_tcgen05_fences(uint64_t a_desc, uint64_t b_desc, uint32_t idesc, float* out) {
  gemm_tile<false>(a_desc, b_desc, idesc, out);
}
__global__ void gemm_tile_tcgen05_fences(uint64_t a_desc, uint64_t b_desc, uint32_t idesc, float* out) {
  gemm_tile<true>(a_desc, b_desc, idesc, out);
}
