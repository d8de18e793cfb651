// Issue 30, shape 6: tensor-memory ordering across threads (sm_100a).
// tcgen05.mma / ld / st / cp work handed between threads through an mbarrier
// or bar.sync: the thread whose tcgen05 work comes first executes
// tcgen05.fence::before_thread_sync between that work and the
// synchronization, the thread whose tcgen05 work comes next executes
// ::after_thread_sync between the synchronization and its work (PTX ISA,
// tcgen05 memory consistency model). Issue 30 asks for this with
// release/acquire synchronization too (bar.sync, a default mbarrier arrive
// and try_wait); tcgen05-wait asks for it with relaxed synchronization only.
// A warp that frees tensor memory must also be ordered after every other
// warp's accesses to it by a thread synchronization.
// Shapes: epilogue warps tcgen05.st a bias into the accumulator and arrive on
// an mbarrier for the MMA warp; a bar.sync hand-off of waited tcgen05.ld
// results before an MMA overwrites the columns; warp 0 freeing tensor memory
// while warps 1-3 may still load from it; one thread releasing for the
// warpgroup's tcgen05.st after only __syncwarp() (the shape of
// https://github.com/Dao-AILab/flash-attention/pull/2033: "Sync compute
// warpgroup (not just sync warp)"); the fixed forms.
// Checks: tcgen05-fence (the fences around any thread synchronization),
// tmem-dealloc-race, elected-arrive (tcgen05.st as data; a __syncwarp() does
// not gather the other warps of the warpgroup).
// RUN: %fenceline check --arch sm_100a --verify %s
// RUN: %fenceline check --strict --arch sm_100a --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ void init_barrier(uint64_t* bar, uint32_t count) {
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(bar, count);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
}
__device__ __forceinline__ void wait(uint64_t* bar, uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}
__device__ __forceinline__ void umma(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, bool accumulate) {
  cuda::ptx::tcgen05_mma(cuda::ptx::kind_f16, cuda::ptx::cta_group_1, tmem, a, b, idesc, accumulate);
}

// 1. Epilogue warps (0-3) store a bias into the accumulator with tcgen05.st,
// wait for it, arrive; the MMA thread (warp 4) waits and accumulates onto it.
template <bool kFences>
__device__ __forceinline__ void bias_then_mma(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, uint32_t bias) {
  __shared__ alignas(8) uint64_t bias_ready;
  init_barrier(&bias_ready, 128);
  const unsigned warp = threadIdx.x / 32;
  if (warp < 4) {
    uint32_t v[1] = {bias};
    cuda::ptx::tcgen05_st_32x32b(tmem + (warp * 32 << 16), v);
    cuda::ptx::tcgen05_wait_st();
    if (kFences) cuda::ptx::tcgen05_fence_before_thread_sync();
    (void)cuda::ptx::mbarrier_arrive(&bias_ready);  // expect-strict: tcgen05-fence
  } else if (threadIdx.x == 128) {
    wait(&bias_ready, 0);
    if (kFences) cuda::ptx::tcgen05_fence_after_thread_sync();
    umma(tmem, a, b, idesc, true);  // expect-strict: tcgen05-fence
  }
}
__global__ void bias_handoff_unfenced(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, uint32_t bias) {
  bias_then_mma<false>(tmem, a, b, idesc, bias);
}
__global__ void bias_handoff_fenced(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, uint32_t bias) {
  bias_then_mma<true>(tmem, a, b, idesc, bias);
}

// 2. All warps load the accumulator (and wait for the loads), __syncthreads(),
// then one thread starts the next MMA into the same columns.
template <bool kFences>
__device__ __forceinline__ void drain_then_overwrite(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc,
                                                     float* out) {
  uint32_t v[1];
  cuda::ptx::tcgen05_ld_32x32b(v, tmem + ((threadIdx.x / 32) % 4 * 32 << 16));
  cuda::ptx::tcgen05_wait_ld();
  out[blockIdx.x * blockDim.x + threadIdx.x] = __uint_as_float(v[0]);
  if (kFences) cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();  // expect-strict: tcgen05-fence
  if (kFences) cuda::ptx::tcgen05_fence_after_thread_sync();
  if (threadIdx.x == 0) umma(tmem, a, b, idesc, false);  // expect-strict: tcgen05-fence
}
__global__ void drain_overwrite_unfenced(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, float* out) {
  drain_then_overwrite<false>(tmem, a, b, idesc, out);
}
__global__ void drain_overwrite_fenced(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, float* out) {
  drain_then_overwrite<true>(tmem, a, b, idesc, out);
}

// 3. Warp 0 frees the tensor memory right after its own loads; warps 1-3 may
// still be loading. Fixed: every warp waits, fences, and a __syncthreads()
// orders them before the free.
template <bool kSync>
__device__ __forceinline__ void free_after_loads(float* out) {
  __shared__ uint32_t slot;
  const unsigned warp = threadIdx.x / 32;
  if (warp == 0) cuda::ptx::tcgen05_alloc(cuda::ptx::cta_group_1, &slot, 32);
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = slot;
  uint32_t v[1];
  cuda::ptx::tcgen05_ld_32x32b(v, tmem + (warp * 32 << 16));
  cuda::ptx::tcgen05_wait_ld();
  out[blockIdx.x * blockDim.x + threadIdx.x] = __uint_as_float(v[0]);
  if (kSync) {
    cuda::ptx::tcgen05_fence_before_thread_sync();
    __syncthreads();
    cuda::ptx::tcgen05_fence_after_thread_sync();
  }
  if (warp == 0) {
    cuda::ptx::tcgen05_relinquish_alloc_permit(cuda::ptx::cta_group_1);
    cuda::ptx::tcgen05_dealloc(cuda::ptx::cta_group_1, tmem, 32);  // expect: tmem-dealloc-race
  }
}
__global__ void __launch_bounds__(128) free_while_others_load(float* out) { free_after_loads<false>(out); }
__global__ void __launch_bounds__(128) free_after_everyone_loaded(float* out) { free_after_loads<true>(out); }

// 4. The four warps of a warpgroup store statistics into tensor memory and
// wait for their stores; thread 0 releases the columns to the MMA warp after a
// __syncwarp() (its own warp only) instead of a warpgroup barrier.
template <bool kWarpgroupBarrier>
__device__ __forceinline__ void stats_release(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, uint32_t s) {
  __shared__ alignas(8) uint64_t stats_ready;
  init_barrier(&stats_ready, 1);
  if (threadIdx.x < 128) {
    uint32_t v[1] = {s + threadIdx.x};
    cuda::ptx::tcgen05_st_32x32b(tmem + ((threadIdx.x / 32) * 32 << 16), v);
    cuda::ptx::tcgen05_wait_st();
    cuda::ptx::tcgen05_fence_before_thread_sync();
    if (kWarpgroupBarrier) asm volatile("bar.sync 1, 128;" ::: "memory");
    else __syncwarp();
    if (threadIdx.x == 0) (void)cuda::ptx::mbarrier_arrive(&stats_ready);  // expect: elected-arrive
  } else if (threadIdx.x == 128) {
    wait(&stats_ready, 0);
    cuda::ptx::tcgen05_fence_after_thread_sync();
    umma(tmem, a, b, idesc, true);
  }
}
__global__ void stats_released_after_syncwarp(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc, uint32_t s) {
  stats_release<false>(tmem, a, b, idesc, s);
}
__global__ void stats_released_after_warpgroup_barrier(uint32_t tmem, uint64_t a, uint64_t b, uint32_t idesc,
                                                       uint32_t s) {
  stats_release<true>(tmem, a, b, idesc, s);
}
