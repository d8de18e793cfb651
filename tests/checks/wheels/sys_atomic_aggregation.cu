// Shape O of the held-out look (docs/real-code.md, "Held-out first look (session 25)"): a group-by
// aggregation updates output elements with system-scope atomics and sets their validity bits with
// an atomic or on a null mask. Nothing reads those words while the kernel runs: they are results,
// read after the launch completes. Two facts of the PTX say so:
//  - a compare-and-swap retry loop is no wait. Its compare operand is what the thread last read of
//    the word (this trip's load of it, or the previous trip's returned value, here kept in a slot
//    of the thread's local memory, as libcu++'s compare_exchange keeps `expected` for its
//    local-memory branch): it leaves as soon as no other thread wrote between its read and its
//    CAS, on no value that another thread must store. Taken for a spin, it was the "wait" of
//    every .sys atomic on an output word (end-of-kernel-wait).
//  - a read-modify-write whose value is data (the min or max of a thread's input, a sum computed
//    from the old value) is the update of a result, not a flag: no poller knows which value to
//    wait for. Only a value the same for the whole launch (a constant, a kernel parameter) is one a
//    host can test.
//
//  - aggregate_rows: a double sum by a CAS retry loop with the expected value in local memory and
//    a nanosleep backoff, a 128-bit sum by a CAS loop that reloads the word each trip, min and max
//    at .sys, each after its atomicOr on the null mask: silent in both tiers.
//  - aggregate_rows_then_done: the same aggregation, then thread 0 of every block raises a host
//    flag with a relaxed .sys exchange of 1 (no fence): release-missing.
//  - aggregate_rows_then_done_store: the same with a relaxed .sys store of 1: release-missing.
//  - best_of_block: a block's results, then a relaxed .sys max of the thread's own value into one
//    word of a parameter: a reduction, no flag: silent.
//  - blocks_done_count: the same results, then a relaxed .sys add of 1 into one word of a
//    parameter (a count a host compares with the grid size): release-missing.
//  - take_token_then_read: a semaphore taken with a CAS that reloads the count each trip and
//    retries while it is 0 (`v == 0 || !cas(v, v - 1)`): a wait on a count another block must
//    raise, not a retry; the data read after it without an acquire: acquire-missing (at the load
//    and at the CAS, the two polls).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cuda/atomic>
#include <cstdint>

struct Column {  // in device memory: the kernel reads the pointers
  void* data;
  unsigned* valid;
};

__device__ __forceinline__ void set_valid(unsigned* mask, int row) { atomicOr(&mask[row >> 5], 1u << (row & 31)); }

__device__ __forceinline__ unsigned long long cas_sys(unsigned long long* p, unsigned long long expected,
                                                      unsigned long long desired) {
  unsigned long long got;
  asm volatile("atom.cas.relaxed.sys.b64 %0, [%1], %2, %3;" : "=l"(got) : "l"(p), "l"(expected), "l"(desired) : "memory");
  return got;
}

// The expected value lives in the thread's local memory (written and read with st.local/ld.local).
__device__ __forceinline__ void store_local(unsigned long long* slot, unsigned long long v) {
  asm volatile("{\n\t.reg .b64 a;\n\tcvta.to.local.u64 a, %0;\n\tst.local.b64 [a], %1;\n\t}" ::"l"(slot), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long load_local(unsigned long long* slot) {
  unsigned long long v;
  asm volatile("{\n\t.reg .b64 a;\n\tcvta.to.local.u64 a, %1;\n\tld.local.b64 %0, [a];\n\t}" : "=l"(v) : "l"(slot) : "memory");
  return v;
}

__device__ void sum_by_cas(double* target, double v) {
  auto* word = reinterpret_cast<unsigned long long*>(target);
  unsigned long long slot;
  store_local(&slot, cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(*word).load(cuda::memory_order_relaxed));
  while (true) {
    const unsigned long long expected = load_local(&slot);
    const unsigned long long got = cas_sys(word, expected, __double_as_longlong(__longlong_as_double(expected) + v));
    store_local(&slot, got);
    if (got == expected) break;
    __nanosleep(0);
  }
}

// A 128-bit sum: the word is read again on every trip and the CAS compared with that read.
__device__ void sum128_by_cas(__int128* target, __int128 v) {
  unsigned long long lo, hi;
  bool done;
  do {
    const __int128 old = *target;
    const __int128 sum = old + v;
    asm volatile(
        "{\n\t.reg .b128 c, s, d;\n\t"
        "mov.b128 c, {%2, %3};\n\t"
        "mov.b128 s, {%4, %5};\n\t"
        "atom.relaxed.sys.cas.b128 d, [%6], c, s;\n\t"
        "mov.b128 {%0, %1}, d;\n\t}"
        : "=l"(lo), "=l"(hi)
        : "l"((unsigned long long)old), "l"((unsigned long long)(old >> 64)), "l"((unsigned long long)sum),
          "l"((unsigned long long)(sum >> 64)), "l"(target)
        : "memory");
    done = ((lo ^ (unsigned long long)old) | (hi ^ (unsigned long long)(old >> 64))) == 0;
  } while (!done);
}

enum Kind : int { SumF64, SumI128, MinI64, MaxI64 };

// Row i into column c of the output by the column's aggregation kind (the columns are entries of
// one table, read at a variable index: their data pointers may point into one buffer).
__device__ __forceinline__ void aggregate_element(const Column* in, Column* out, const Kind* kinds, int c, int i, int t) {
  {
    set_valid(out[c].valid, t);
    switch (kinds[c]) {
      case SumF64: sum_by_cas(static_cast<double*>(out[c].data) + t, static_cast<const double*>(in[c].data)[i]); break;
      case SumI128:
        sum128_by_cas(static_cast<__int128*>(out[c].data) + t, static_cast<const __int128*>(in[c].data)[i]);
        break;
      case MinI64:
        cuda::atomic_ref<int64_t, cuda::thread_scope_system>(static_cast<int64_t*>(out[c].data)[t])
            .fetch_min(static_cast<const int64_t*>(in[c].data)[i], cuda::memory_order_relaxed);
        break;
      case MaxI64:
        cuda::atomic_ref<int64_t, cuda::thread_scope_system>(static_cast<int64_t*>(out[c].data)[t])
            .fetch_max(static_cast<const int64_t*>(in[c].data)[i], cuda::memory_order_relaxed);
        break;
    }
  }
}

__global__ void aggregate_rows(const Column* __restrict__ in, Column* out, const int* __restrict__ target_rows,
                               const Kind* __restrict__ kinds, int c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) aggregate_element(in, out, kinds, c, i, target_rows[i]);
}

__global__ void aggregate_rows_then_done(const Column* __restrict__ in, Column* out, const int* __restrict__ target_rows,
                                         const Kind* __restrict__ kinds, int c, int n, unsigned* done) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) aggregate_element(in, out, kinds, c, i, target_rows[i]);
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*done).exchange(1u, cuda::memory_order_relaxed);  // expect: release-missing
  }
}

__global__ void aggregate_rows_then_done_store(const Column* __restrict__ in, Column* out,
                                               const int* __restrict__ target_rows, const Kind* __restrict__ kinds,
                                               int c, int n, unsigned* done) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) aggregate_element(in, out, kinds, c, i, target_rows[i]);
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*done).store(1u, cuda::memory_order_relaxed);  // expect: release-missing
  }
}

__global__ void best_of_block(const long long* __restrict__ in, long long* results, long long* best, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const long long v = i < n ? in[i] * 3 : 0;
  if (i < n) results[i] = v;
  cuda::atomic_ref<long long, cuda::thread_scope_system>(*best).fetch_max(v, cuda::memory_order_relaxed);
}

__global__ void blocks_done_count(const long long* __restrict__ in, long long* results, unsigned* finished, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) results[i] = in[i] * 3;
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_system>(*finished).fetch_add(1u, cuda::memory_order_relaxed);  // expect: release-missing
  }
}

// Block 0 publishes a value and raises a count; the other blocks take a token from the count,
// waiting while it is 0, and read the value without an acquire.
__global__ void take_token_then_read(unsigned* tokens, int* value, int* out) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      *value = 42;
      __threadfence();
      cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*tokens).fetch_add(gridDim.x - 1, cuda::memory_order_relaxed);
    }
    return;
  }
  if (threadIdx.x != 0) return;
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> count(*tokens);
  unsigned v;
  do {
    v = count.load(cuda::memory_order_relaxed);  // expect: acquire-missing
  } while (v == 0 || !count.compare_exchange_strong(v, v - 1, cuda::memory_order_relaxed));  // expect: acquire-missing
  out[blockIdx.x] = *value;
}
