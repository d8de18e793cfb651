// A once-initialized table whose ready word is waited on with a local-or-global acquire load (as
// NCCL's AlltoAll_LL kernels do, docs/real-code.md "Shape U, part one"): the first block to claim
// the word (compare-exchange 0 -> 1) fills the table and stores 2 with release; the others wait
// until the word reaches 2, or until a host abort flag is raised; the last block of each round
// resets the word to 0 for the next round with a relaxed store. The waiters never leave on 0: the
// reset is no signal (release-missing would ask for a release before it), whether the exit test
// is read alone or next to the abort poll, and whether the compared register also comes from the
// local branch of the load. The twin's last block refills the table and stores 2 with a relaxed
// store: the waiters leave on 2, so the table writes before it need a release: release-missing.
// The abort poll (a relaxed load, no writer in the kernel) and the claim's compare-exchange are
// strict-tier findings in both.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cuda/atomic>
struct Once {
  unsigned ready;    // 0: free, 1: being initialized, 2: ready
  unsigned arrived;  // blocks done with the table this launch
  float table[64];
};
// An acquire load of the ready word, local-or-global as libcu++ dispatches it (two branches on
// one `isspacep.local` predicate; tests/checks/wheels/local_or_global_turn_wait.cu).
__device__ __forceinline__ unsigned load_ready_acquire(const unsigned* p, unsigned seen) {
  asm volatile(
      "{\n\t"
      ".reg .pred l;\n\t"
      "isspacep.local l, %1;\n\t"
      "@!l bra LOCAL_DONE;\n\t"
      "ld.u32 %0, [%1];\n\t"
      "nanosleep.u32 0;\n"
      "LOCAL_DONE:\n\t"
      "@l bra GLOBAL_DONE;\n\t"
      "ld.acquire.gpu.b32 %0, [%1];\n"
      "GLOBAL_DONE:\n\t"
      "}"
      : "+r"(seen)
      : "l"(p)
      : "memory");
  return seen;
}
__device__ __forceinline__ bool aborted(const unsigned* flag) {
  return cuda::atomic_ref<const unsigned, cuda::thread_scope_system>(*flag).load(cuda::std::memory_order_relaxed) != 0;
}

__global__ void once_table(Once* o, const unsigned* abort_flag, float* out, int rounds) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> ready(o->ready), arrived(o->arrived);
  unsigned seen = 0;
  for (int k = 0; k < rounds; ++k) {
    if (threadIdx.x == 0) {
      unsigned expected = 0;
      if (ready.compare_exchange_strong(expected, 1, cuda::std::memory_order_relaxed)) {  // expect-strict: release-missing
        for (int i = 0; i < 64; ++i) o->table[i] = i * 0.5f;
        ready.store(2, cuda::std::memory_order_release);
      }
      while ((seen = load_ready_acquire(&o->ready, seen)) < 2 && !aborted(abort_flag)) {  // expect-strict: acquire-missing
      }
    }
    __syncthreads();
    out[(blockIdx.x * rounds + k) * blockDim.x + threadIdx.x] = o->table[threadIdx.x % 64];
    __syncthreads();
    if (threadIdx.x == 0 && arrived.fetch_add(1, cuda::std::memory_order_acq_rel) == gridDim.x - 1) {
      arrived.store(0, cuda::std::memory_order_relaxed);
      ready.store(0, cuda::std::memory_order_relaxed);
    }
  }
}

__global__ void once_table_republished(Once* o, const unsigned* abort_flag, float* out, int rounds) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> ready(o->ready), arrived(o->arrived);
  unsigned seen = 0;
  for (int k = 0; k < rounds; ++k) {
    if (threadIdx.x == 0) {
      unsigned expected = 0;
      if (ready.compare_exchange_strong(expected, 1, cuda::std::memory_order_relaxed)) {  // expect-strict: release-missing
        for (int i = 0; i < 64; ++i) o->table[i] = i * 0.5f;
        ready.store(2, cuda::std::memory_order_release);
      }
      while ((seen = load_ready_acquire(&o->ready, seen)) < 2 && !aborted(abort_flag)) {  // expect-strict: acquire-missing
      }
    }
    __syncthreads();
    out[(blockIdx.x * rounds + k) * blockDim.x + threadIdx.x] = o->table[threadIdx.x % 64];
    __syncthreads();
    if (threadIdx.x == 0 && arrived.fetch_add(1, cuda::std::memory_order_acq_rel) == gridDim.x - 1) {
      for (int i = 0; i < 64; ++i) o->table[i] = (k + 1) * 0.5f + i;
      arrived.store(0, cuda::std::memory_order_relaxed);
      ready.store(2, cuda::std::memory_order_relaxed);  // expect: release-missing
    }
  }
}
