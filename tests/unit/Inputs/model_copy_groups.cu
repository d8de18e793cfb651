// Kernels for the cp.async completion unit tests (ModelCopyCompletionTest.cpp):
// non-bulk async-group accounting (commit_group, wait_group N, wait_all), the
// bulk groups kept apart, and completion through cp.async.mbarrier.arrive.
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void cp_async_16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(dst)), "l"(src) : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_group() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// A: wait_all settles the copy, although its group was never committed.
__global__ void wait_all_settles_open(const int4* src, int4* out) {
  __shared__ int4 buf[128];
  cp_async_16(&buf[threadIdx.x], src + threadIdx.x);
  wait_all();
  out[threadIdx.x] = buf[threadIdx.x ^ 1];
}

// B: wait_group 0 before the commit does not settle the open group; the one
// after the commit does.
__global__ void wait_before_commit(const int4* src, int4* out) {
  __shared__ int4 buf[128];
  cp_async_16(&buf[threadIdx.x], src + threadIdx.x);
  wait_group<0>();
  commit();
  wait_group<0>();
  out[threadIdx.x] = buf[threadIdx.x ^ 1];
}

// C: two groups; wait_group 1 settles the first copy only, wait_group 0 the second.
__global__ void wait_depth(const int4* src, int4* out) {
  __shared__ int4 a[128], b[128];
  cp_async_16(&a[threadIdx.x], src + threadIdx.x);
  commit();
  cp_async_16(&b[threadIdx.x], src + 128 + threadIdx.x);
  commit();
  wait_group<1>();
  out[threadIdx.x] = a[threadIdx.x ^ 1];
  wait_group<0>();
  out[128 + threadIdx.x] = b[threadIdx.x ^ 1];
}

// D: bulk groups are not the copy's: cp.async.bulk.commit_group / wait_group 0
// leave it pending; the non-bulk wait_all settles it.
__global__ void bulk_groups_apart(const int4* src, int4* out) {
  __shared__ int4 buf[128];
  cp_async_16(&buf[threadIdx.x], src + threadIdx.x);
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  wait_all();
  out[threadIdx.x] = buf[threadIdx.x ^ 1];
}

// E: a 3-stage ring: the prologue commits two groups, each trip waits with
// wait_group 1 (N - 2), reads the stage, refills the one two ahead, commits.
// A copy of the loop is settled by the loop's wait (two trips later) or by
// the drain after the loop.
__global__ void ring(const int4* src, int4* out, int trips) {
  __shared__ int4 stages[3][128];
  cp_async_16(&stages[0][threadIdx.x], src + threadIdx.x);
  commit();
  cp_async_16(&stages[1][threadIdx.x], src + 128 + threadIdx.x);
  commit();
  int4 acc = make_int4(0, 0, 0, 0);
  for (int k = 0; k < trips; ++k) {
    wait_group<1>();
    __syncthreads();
    int4 v = stages[k % 3][threadIdx.x ^ 1];
    acc.x += v.x;
    __syncthreads();
    cp_async_16(&stages[(k + 2) % 3][threadIdx.x], src + (k + 2) * 128 + threadIdx.x);
    commit();
  }
  wait_group<0>();
  out[threadIdx.x] = acc;
}

// F: completion through an mbarrier: the copies of warp 1 are tracked by
// `full` (cp.async.mbarrier.arrive.noinc); warp 0 waits on `full`, and also
// on `empty`, which tracks no copy.
__global__ void mbarrier_completion(const int4* src, int4* out) {
  __shared__ int4 buf[32];
  __shared__ alignas(8) uint64_t full, empty;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" ::"r"(smem(&full)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&empty)) : "memory");
  }
  __syncthreads();
  const uint32_t lane = threadIdx.x & 31;
  if (threadIdx.x >= 32) {
    cp_async_16(&buf[lane], src + lane);
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem(&full)) : "memory");
  } else {
    asm volatile(
        "{\n\t.reg .pred P1;\n\tWAIT_EMPTY:\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], 1;\n\t"
        "@!P1 bra WAIT_EMPTY;\n\t}" ::"r"(smem(&empty))
        : "memory");
    asm volatile(
        "{\n\t.reg .pred P1;\n\tWAIT_FULL:\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], 0;\n\t"
        "@!P1 bra WAIT_FULL;\n\t}" ::"r"(smem(&full))
        : "memory");
    out[lane] = buf[lane ^ 1];
  }
}
