// elected-arrive: the lanes (or warps) of a producer write shared or global
// memory, and one elected thread releases it: an mbarrier arrive, a release
// store. The release orders that thread's own writes only. Broken: no
// __syncwarp()/bar.sync among the writers before the elected release. Fixed:
// the synchronization, or every writer arrives. Shapes: inline asm with
// `lane == 0`, elect.sync, cuda::ptx with a named barrier across a warp
// group, a release store to global memory that another block acquires.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void init_barrier(uint64_t* bar, uint32_t count) {
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
  __syncthreads();
}
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
__device__ __forceinline__ bool elect_one() {
  uint32_t elected;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(elected));
  return elected != 0;
}

// 1. lane == 0 arrives for the warp that wrote the tile (arrival count 1).
template <bool kSync>
__device__ __forceinline__ void lane0_handoff(const float* in, float* out) {
  __shared__ float tile[32 * 8];
  __shared__ alignas(8) uint64_t full;
  init_barrier(&full, 1);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (warp == 0) {
    for (int j = 0; j < 8; ++j) tile[j * 32 + lane] = in[j * 32 + lane] * 2.0f;
    if (kSync) __syncwarp();
    if (lane == 0) arrive(&full);
  } else if (warp == 1) {
    wait_parity(&full, 0);
    out[lane] = tile[lane * 8];
  }
}
__global__ void lane0_no_syncwarp(const float* in, float* out) {
  lane0_handoff<false>(in, out);  // expect: elected-arrive
}
__global__ void lane0_syncwarp(const float* in, float* out) { lane0_handoff<true>(in, out); }

// 2. elect.sync picks the arriving lane.
template <bool kSync>
__device__ __forceinline__ void elect_handoff(const float* in, float* out) {
  __shared__ float tile[32 * 8];
  __shared__ alignas(8) uint64_t full;
  init_barrier(&full, 1);
  const unsigned lane = threadIdx.x % 32;
  if (threadIdx.x < 32) {
    for (int j = 0; j < 8; ++j) tile[j * 32 + lane] = in[j * 32 + lane] + 1.0f;
    if (kSync) __syncwarp();
    if (elect_one()) arrive(&full);
  } else {
    wait_parity(&full, 0);
    out[threadIdx.x] = tile[(threadIdx.x * 7) % 256];
  }
}
__global__ void elect_no_syncwarp(const float* in, float* out) {
  elect_handoff<false>(in, out);  // expect: elected-arrive
}
__global__ void elect_syncwarp(const float* in, float* out) { elect_handoff<true>(in, out); }

// 3. cuda::ptx: a warp group (128 threads) writes, thread 0 arrives; the
// fixed form meets at a named barrier of the warp group first.
template <bool kSync>
__device__ __forceinline__ void warpgroup_handoff(const float* in, float* out) {
  __shared__ float tile[128 * 4];
  __shared__ alignas(8) uint64_t full;
  init_barrier(&full, 1);
  if (threadIdx.x < 128) {
    for (int j = 0; j < 4; ++j) tile[j * 128 + threadIdx.x] = in[j * 128 + threadIdx.x];
    if (kSync) asm volatile("bar.sync 1, 128;" ::: "memory");
    if (threadIdx.x == 0)
      (void)cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full);
  } else {
    wait_parity(&full, 0);
    out[threadIdx.x] = tile[511 - (threadIdx.x - 128)];
  }
}
__global__ void ptx_warpgroup_no_barrier(const float* in, float* out) {
  warpgroup_handoff<false>(in, out);  // expect: elected-arrive
}
__global__ void ptx_warpgroup_named_barrier(const float* in, float* out) { warpgroup_handoff<true>(in, out); }

// 4. A release store to global memory by thread 0 after the block wrote its
// results; block 1 acquires the flag and reads them.
template <bool kSync>
__device__ __forceinline__ void publish(float* data, unsigned* flag, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = float(threadIdx.x) * 3.0f;
    if (kSync) __syncthreads();
    if (threadIdx.x == 0) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*flag).store(1, cuda::memory_order_release);
  } else if (blockIdx.x == 1) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
    while (f.load(cuda::memory_order_acquire) == 0) {
    }
    out[threadIdx.x] = data[(threadIdx.x + 1) % blockDim.x];
  }
}
__global__ void release_store_no_barrier(float* data, unsigned* flag, float* out) {
  publish<false>(data, flag, out);  // expect: elected-arrive
}
__global__ void release_store_after_syncthreads(float* data, unsigned* flag, float* out) {
  publish<true>(data, flag, out);
}

// 5. Clean: every lane arrives (arrival count 32); no election.
__global__ void every_lane_arrives(const float* in, float* out) {
  __shared__ float tile[32 * 8];
  __shared__ alignas(8) uint64_t full;
  init_barrier(&full, 32);
  const unsigned lane = threadIdx.x % 32;
  if (threadIdx.x < 32) {
    for (int j = 0; j < 8; ++j) tile[j * 32 + lane] = in[j * 32 + lane];
    arrive(&full);
  } else {
    wait_parity(&full, 0);
    out[threadIdx.x] = tile[(threadIdx.x * 5) % 256];
  }
}

// 6. Clean: the writes are the consumer's own output, not read after the wait
// (the stage-free arrive of a consumer that writes its results to global);
// the waiter reads only the kernel's read-only input (ld.global.nc).
__global__ void output_then_stage_free(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[256];
  __shared__ alignas(8) uint64_t empty;
  init_barrier(&empty, 1);
  if (threadIdx.x < 32) {
    tile[threadIdx.x] = in[threadIdx.x];
    out[blockIdx.x * 32 + threadIdx.x] = in[threadIdx.x + 32] * 2.0f;
    if (threadIdx.x == 0) arrive(&empty);
  } else if (threadIdx.x == 32) {
    wait_parity(&empty, 0);
    out[1024] = in[5];
  }
}
