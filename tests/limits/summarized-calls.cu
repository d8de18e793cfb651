// Issues 34 and 35: a kernel that calls a large synchronization-free helper
// many times (cuDF's row comparators in CUB's reduce, scan and select
// kernels: 120 to 280 calls of 5,000 to 21,000 instructions each, 46
// functions "not checked" in libcudf.so). Inlined whole, the model passes
// --max-instructions (here 600, so that a small kernel shows it; the
// comparator is about 30 instructions, called 32 times); the comparator
// orders nothing and writes only its own frame (model/CallSummaries.h), so
// the kernel keeps those calls as calls and is checked, with a note. main
// (e507211) reported both kernels "not checked" here. The findings are those
// of the run with the default limits, where everything is inlined
// (the second RUN line).
// publish_after_compares: the hazard is in the kernel's own body.
// raise_in_helper (the twin): the flag store is in a noinline helper, which
// synchronizes (a volatile store): it is inlined, and its finding stays.
// RUN: %fenceline check --arch sm_90a --max-instructions 600 --verify %s 2>&1 | FileCheck %s
// RUN: %fenceline check --arch sm_90a --verify %s
// CHECK-DAG: note: kernel 'publish_after_compares' checked with 32 calls to synchronization-free functions not inlined (inlined whole, its model would have {{[0-9]+}} instructions: more than --max-instructions)
// CHECK-DAG: note: kernel 'raise_in_helper' checked with 32 calls to synchronization-free functions not inlined
// CHECK-NOT: not checked

// Compares two rows of `width` ints: weak loads, no store.
__device__ __noinline__ int compare_rows(const int* a, const int* b, int width) {
  for (int c = 0; c < width; ++c) {
    const int x = a[c], y = b[c];
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

__device__ __forceinline__ int rank_of(const int* rows, int width, int row) {
  int rank = 0;
#pragma unroll
  for (int r = 0; r < 32; ++r) rank += compare_rows(rows + row * width, rows + r * width, width) > 0;
  return rank;
}

// Block 0 ranks its rows and raises the flag with no fence after the ranks.
extern "C" __global__ void publish_after_compares(const int* rows, int width, int* ranks, volatile int* flag) {
  if (blockIdx.x == 0) {
    ranks[threadIdx.x] = rank_of(rows, width, threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 0) flag[0] = 1;  // expect: release-missing
    return;
  }
  if (threadIdx.x == 0)
    while (flag[0] == 0) {  // expect: acquire-missing
    }
  __syncthreads();
  ranks[blockDim.x * blockIdx.x + threadIdx.x] = ranks[threadIdx.x];
}

// The flag store in a helper of its own.
__device__ __noinline__ void raise_flag(volatile int* flag) { flag[0] = 1; }  // expect: release-missing

extern "C" __global__ void raise_in_helper(const int* rows, int width, int* ranks, volatile int* flag) {
  if (blockIdx.x == 0) {
    ranks[threadIdx.x] = rank_of(rows, width, threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 0) raise_flag(flag);
    return;
  }
  if (threadIdx.x == 0)
    while (flag[0] == 0) {  // expect: acquire-missing
    }
  __syncthreads();
  ranks[blockDim.x * blockIdx.x + threadIdx.x] = ranks[threadIdx.x];
}
