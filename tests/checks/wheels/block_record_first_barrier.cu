// acquire-missing on a block's own record (session 24, nvCOMP's Snappy decoder, shape B): each
// block keeps its state in `records[blockIdx.x]` (a null-checked pointer, `records ? records +
// blockIdx.x : nullptr`, as the library passes an optional checker). Thread 0 initializes the
// record's status word and its progress counter before the block's first __syncthreads(), and the
// block's output size after it, before a second one. Then one warp scans its input and publishes
// how far it got with relaxed .cta stores of the counter, and another warp polls the counter with
// relaxed .cta loads and, past the wait, reads the status word, the size and the input.
//  - Safe: the record is indexed by the block at a known stride, so the flag pins the partner to
//    this block (MemoryAnalysis::blockSlices), also through the null check (the null side of the
//    choice faults: every access goes through the pointer). The status word is written only
//    before the first barrier, which orders it for every reader after one (model/FirstBarrier.h);
//    the size word is separated from every signal by the second barrier (a waiter that sees a
//    signal arrived at that barrier before it: ProtocolModel::barrierBeforeSignal); the input is
//    never written. No finding in either tier.
//  - Broken twin: the scanning warp also writes the status (an error code) after the barriers,
//    before it publishes the counter, with no release; the polling warp reads it after a relaxed
//    wait with no acquire: acquire-missing and release-missing in the default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s

struct Record {
  int status;
  int pad;
  unsigned long long input;
  int produced;
  int consumed;
  int abort;
  int pad2;
};

__device__ __forceinline__ void store_cta(int* p, int v) {
  asm volatile("st.relaxed.cta.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ int load_cta(const int* p) {
  int v;
  asm volatile("ld.relaxed.cta.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void publish_twin(int* p, int v) {
  asm volatile("st.relaxed.cta.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");  // expect: release-missing
}
__device__ __forceinline__ int wait_twin(const int* p) {
  int v;
  asm volatile("ld.relaxed.cta.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}

// Safe: the status is the block's initialization, ordered by the first barrier.
__global__ void __launch_bounds__(96) own_record(const int* __restrict__ in, int n, int* __restrict__ out,
                                                 Record* records, unsigned long long* sizes) {
  Record* rec = records ? records + blockIdx.x : nullptr;
  if (threadIdx.x == 0) {
    rec->status = -1;
    store_cta(&rec->produced, 0);
    store_cta(&rec->abort, 0);
  }
  __syncthreads();
  if (threadIdx.x == 0) sizes[blockIdx.x] = n;
  __syncthreads();
  if (threadIdx.x < 32) {
    int valid = 0;
    for (int i = threadIdx.x; i < n; i += 32) valid += in[blockIdx.x * n + i] >= 0;
    for (int o = 16; o > 0; o >>= 1) valid += __shfl_xor_sync(0xffffffffu, valid, o);
    if (threadIdx.x == 0) store_cta(&rec->produced, valid);
  } else if (threadIdx.x < 64) {
    while (load_cta(&rec->produced) == 0) __nanosleep(100);
    if (rec->status == -1 && sizes[blockIdx.x] != 0)
      out[blockIdx.x * 32 + threadIdx.x - 32] = in[blockIdx.x * n + threadIdx.x - 32];
  }
}

// Broken twin: the scanning warp's status write is handed over by the relaxed counter alone.
__global__ void __launch_bounds__(96) status_after_barrier(const int* __restrict__ in, int n,
                                                           int* __restrict__ out, Record* records,
                                                           unsigned long long* sizes) {
  Record* rec = records ? records + blockIdx.x : nullptr;
  if (threadIdx.x == 0) {
    rec->status = -1;
    store_cta(&rec->produced, 0);
    store_cta(&rec->abort, 0);
  }
  __syncthreads();
  if (threadIdx.x == 0) sizes[blockIdx.x] = n;
  __syncthreads();
  if (threadIdx.x < 32) {
    int valid = 0;
    for (int i = threadIdx.x; i < n; i += 32) valid += in[blockIdx.x * n + i] >= 0;
    for (int o = 16; o > 0; o >>= 1) valid += __shfl_xor_sync(0xffffffffu, valid, o);
    if (threadIdx.x == 0) {
      if (valid < n) rec->status = 2;
      publish_twin(&rec->produced, valid);
    }
  } else if (threadIdx.x < 64) {
    while (wait_twin(&rec->produced) == 0) __nanosleep(100);
    if (rec->status == -1 && sizes[blockIdx.x] != 0)
      out[blockIdx.x * 32 + threadIdx.x - 32] = in[blockIdx.x * n + threadIdx.x - 32];
  }
}
