// Shape from the wheels sample (docs/real-code.md, "The wheels sample"): cuBLAS's warp-specialized
// TMA symv kernel. A persistent loop over tiles encloses the role dispatch: one producer thread and
// a group of compute threads. The "full" barrier counts every compute thread and the producer
// (kCompute + 1): each compute thread arrives on it itself and then waits (a join), and the
// producer arrives once per tile after it has waited on the "empty" barrier, which every compute
// thread arrives on after writing its accumulator. Compute threads read a neighbour's accumulator
// of the previous tile after the join.
// Safe: every writer's own arrive on "full" releases its write, and the producer's arrive comes
// after it acquired every writer's release through "empty" (cumulative). The producer's arrive
// is not the only release of the compute threads' writes.
// Silent since elected-arrive pairs a write with a release only when their %tid.x ranges (narrowed
// by the role branches, model/GuardedRanges.h) meet: the path from a compute thread's write to the
// producer's arrive runs around the loop's back edge into the other role's branch, which no thread
// takes. (It was reported before: XFAIL until then.)
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}

constexpr int kCompute = 128;

__global__ void join_with_producer(const float* in, float* out, int tiles) {
  __shared__ float acc[2][kCompute];
  __shared__ alignas(8) uint64_t full, empty;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(&full)), "r"(kCompute + 1) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(&empty)), "r"(kCompute) : "memory");
  }
  __syncthreads();
  float sum = 0.f;
  for (int t = 0; t < tiles; ++t) {
    if (threadIdx.x == kCompute) {
      if (t > 0) wait_parity(&empty, (t - 1) & 1);
      arrive(&full);
    } else if (threadIdx.x < kCompute) {
      arrive(&full);
      wait_parity(&full, t & 1);
      if (t > 0) sum += acc[(t + 1) & 1][(threadIdx.x + 1) % kCompute];
      acc[t & 1][threadIdx.x] = in[t * kCompute + threadIdx.x] + sum;
      arrive(&empty);
    }
  }
  if (threadIdx.x < kCompute) out[blockIdx.x * kCompute + threadIdx.x] = sum;
}
