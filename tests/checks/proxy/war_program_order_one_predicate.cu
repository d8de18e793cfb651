// proxy-war by program order, grouped over the paths a thread can take (docs/checks/proxy-war.md,
// "One finding per fence"). One thread reads both halves of a stage back through the generic
// proxy, then refills each half with its own bulk copy. The shape of NCCL's symmetric kernels
// (session 26, copy 10456): each copy sits under the same predicate (`@%p bra` skips both, the
// predicate unchanged between), and each copy's source is checked with `__isGlobal`, the other
// side of the check a failed assertion (`__assertfail`, which does not return; nvcc lets its block
// run into the join after the copy).
//
// - halves_on_one_predicate: the first copy lies on every path a thread can take from the reads to
//   the second (skipping the first copy skips the second; the assertion ends its path): one fence
//   before the first copy covers both. One finding, its fix "the one fence covers them too".
//   Without line information (NCCL's PTX) the two copies' reads are different instructions, so
//   only the path rule groups them: one warning, not two.
// - halves_on_two_predicates (the twin): the second copy runs under a predicate of its own; a
//   thread may skip the first copy and run the second. One fence before each copy: in the source
//   one finding whose fix says so, in the PTX without line information two findings.
// RUN: not %fenceline check --arch sm_90a %s 2>&1 | FileCheck %s --check-prefix=SRC
// RUN: %nvcc -arch=sm_90a -ptx -o %t.ptx %s
// RUN: not %fenceline check %t.ptx 2>&1 | FileCheck %s --check-prefix=PTX
//
// SRC: warning: {{.*}}[proxy-war]
// SRC: note: inlined from 'halves_on_one_predicate
// SRC: fix: {{.*}}every path from the accesses to the other copies passes it, so the one fence covers them too
// SRC: warning: {{.*}}[proxy-war]
// SRC: note: inlined from 'halves_on_two_predicates
// SRC: fix: {{.*}}no one copy is on every path to the others: one fence before each
// SRC: 2 warnings in 2 functions
//
// PTX: warning: {{.*}}[proxy-war]
// PTX: another async-proxy write {{.*}}, after this copy
// PTX: warning: {{.*}}[proxy-war]
// PTX: warning: {{.*}}[proxy-war]
// PTX: 3 warnings in 2 functions
#include <cassert>
#include <cstdint>

constexpr int kChunkFloats = 32;
constexpr int kChunkBytes = kChunkFloats * 4;

__device__ __forceinline__ unsigned smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void bar_init(unsigned long long* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(bar)) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void arrive_bytes(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void wait_phase(unsigned long long* bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred done;\n"
      "wait_%=:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra wait_%=;\n}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}

// The copy, its source checked: a source outside global memory fails an assertion.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
  if (__isGlobal(src))
    asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(dst)),
                 "l"(src), "r"(bytes), "r"(smem(bar))
                 : "memory");
  else
    assert(!"bulk copy source is not global memory");
}

__global__ void __launch_bounds__(32) halves_on_one_predicate(const float* const* srcs, const int* refill_flags,
                                                              float* out, int* trace, int n, int iters) {
  __shared__ alignas(128) float stage[2 * kChunkFloats];
  __shared__ unsigned long long bar;
  if (threadIdx.x != 0) return;
  bar_init(&bar);
  arrive_bytes(&bar, 2 * kChunkBytes);
  bulk_copy(stage, srcs[0], 2 * kChunkBytes, &bar);
  for (int k = 0; k < iters; ++k) {
    wait_phase(&bar, k & 1);
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < 2 * kChunkFloats; ++i) sum += stage[i];
    out[k] = sum;
    const bool refill = refill_flags[k] != 0;
    const float* next = srcs[k + 1];
    if (refill) {
      arrive_bytes(&bar, 2 * kChunkBytes);
      bulk_copy(stage, next, kChunkBytes, &bar);
    }
    for (int j = 0; j < n; ++j) trace[j] += k;  // keeps the two branches apart
    if (refill) bulk_copy(stage + kChunkFloats, next + kChunkFloats, kChunkBytes, &bar);
  }
}

__global__ void __launch_bounds__(32) halves_on_two_predicates(const float* const* srcs, const int* refill_flags,
                                                               float* out, int* trace, int n, int iters) {
  __shared__ alignas(128) float stage[2 * kChunkFloats];
  __shared__ unsigned long long bar;
  if (threadIdx.x != 0) return;
  bar_init(&bar);
  arrive_bytes(&bar, 2 * kChunkBytes);
  bulk_copy(stage, srcs[0], 2 * kChunkBytes, &bar);
  for (int k = 0; k < iters; ++k) {
    wait_phase(&bar, k & 1);
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < 2 * kChunkFloats; ++i) sum += stage[i];
    out[k] = sum;
    const float* next = srcs[k + 1];
    if (refill_flags[2 * k] != 0) {
      arrive_bytes(&bar, 2 * kChunkBytes);
      bulk_copy(stage, next, kChunkBytes, &bar);
    }
    for (int j = 0; j < n; ++j) trace[j] += k;
    if (refill_flags[2 * k + 1] != 0) bulk_copy(stage + kChunkFloats, next + kChunkFloats, kChunkBytes, &bar);
  }
}
