// elected-arrive in a warp-specialized kernel: roles chosen by warp index,
// one role's code followed by the next role's test. A write of one role
// reaches another role's arrive in the CFG (role A's block falls through to
// role B's test), but no thread takes that path: the write's %tid.x range and
// the arrive's do not meet (model/GuardedRanges.h), so that arrive does not
// hand the write off. Only a role's own unsynchronized writes are its
// arrive's hazard. (The shape of the false findings in cuDNN's KDA backward
// and cuBLAS's symv, docs/real-code.md.)
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");  // expect: elected-arrive
}
__device__ __forceinline__ void arrive_work(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");  // silent: other roles' writes
}
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)), "r"(parity)
      : "memory");
}

// Warps 0-1 fill `a` and lane 0 of each arrives on fullA with no __syncwarp()
// (broken). Thread 64 (warp 2) alone writes the work item and arrives on
// fullB (its own write: fine for elected-arrive). Warp 3 waits for both and
// reads `a` and the work item. Nothing tells thread 64 that warp 3 has read
// round r's item before it writes round r + 1's (no "empty" barrier): a write
// after read that shared-race reports (one thread's write, one word for the
// block, read by threads of another index range, no synchronization on the
// way from the read around the loop to the write).
__global__ void __launch_bounds__(128) roles(float* out, int rounds) {
  __shared__ float a[64];
  __shared__ int work;
  __shared__ alignas(8) uint64_t fullA, fullB;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" ::"r"(smem(&fullA)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&fullB)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    if (warp <= 1) {
      a[threadIdx.x] = float(r + threadIdx.x);
      if (lane == 0) arrive(&fullA);
    }
    if (threadIdx.x == 64) {
      work = r;  // expect: shared-race
      arrive_work(&fullB);
    }
    if (warp == 3) {
      wait_parity(&fullA, r & 1);
      const float x = a[lane] + a[lane + 32];
      wait_parity(&fullB, r & 1);
      out[r * 32 + lane] = x + a[lane] + float(work);
    }
  }
}
