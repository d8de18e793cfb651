// elected-arrive with a release made by a subset of the threads (a branch on
// the thread index, issue 30 shape 3). Where every thread that wrote is one of
// the releasing threads (each consumer writes its own scratch word, then
// arrives for itself: the arrive's release orders its own writes), nothing is
// handed off by another thread, also when the loop is unrolled and one step's
// write reaches the next step's arrive through that step's role test (the
// shape of bench/inputs/unrolled_ring.cu). Where threads outside the subset
// wrote (all 128 write, threads 0-3 arrive), the release is the hazard.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void arrive_own(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");  // silent: each writer arrives
}
__device__ __forceinline__ void arrive_for_all(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");  // expect: elected-arrive
}
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)), "r"(parity)
      : "memory");
}

// Threads 32-127 write their own word of a row and arrive (count 96); thread 0
// waits and reads the row. Eight steps, unrolled.
__global__ void __launch_bounds__(128) each_writer_arrives(float* out) {
  __shared__ float row[8][128];
  __shared__ alignas(8) uint64_t full[2];
  const int tid = threadIdx.x;
  if (tid < 2) asm volatile("mbarrier.init.shared::cta.b64 [%0], 96;" ::"r"(smem(&full[tid])) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  float acc = 0.f;
#pragma unroll
  for (int t = 0; t < 8; ++t) {
    if (tid == 0) {
      wait_parity(&full[t % 2], (t / 2) & 1);
      for (int i = 32; i < 128; ++i) acc += row[t][i];
    } else if (tid >= 32) {
      row[t][tid] = float(t * tid);
      arrive_own(&full[t % 2]);
    }
  }
  out[blockIdx.x * 128 + tid] = acc;
}

// Every thread writes; threads 0-3 arrive (count 4), with no barrier between
// the other threads' writes and those arrives; warp 3 waits and reads.
__global__ void __launch_bounds__(128) subset_arrives_for_all(float* out, int rounds) {
  __shared__ float a[128];
  __shared__ alignas(8) uint64_t full;
  const int tid = threadIdx.x;
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 4;" ::"r"(smem(&full)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    if (tid < 96) a[tid] = float(r + tid);
    if (tid < 4) arrive_for_all(&full);
    if (tid >= 96) {
      wait_parity(&full, r & 1);
      out[r * 32 + tid - 96] = a[tid - 96] + a[127 - tid];
    }
  }
}
