// Session 27, cuDSS's solve_btf_lu row counters (docs/real-code.md): a sparse triangular solve
// keeps one counter per row; a thread waits for its row's counter to reach 0, fences with
// __threadfence_block(), reads the row's value, adds it into each dependent row with
// atomicAdd_block and decrements that row's counter. Every word the protocol touches is
// chosen by a value read from the matrix's structure (the block's row list, the dependents):
// whether a row's decrements come from the waiting thread's block or another one is the
// matrix's, not the PTX's, so the .cta scope is not a decided scope-too-narrow: strict tier,
// partner link `data-indexed-flag` (model/DataIndexedFlags.cpp). Main reported both fences in
// the default tier.
// Broken twin: the waiting row is the block's own by its index (row = blockIdx.x * n + k) while
// the dependents come from the structure: the PTX shows a row owned by one block whose counter
// other blocks' rows decrement, and the .cta fences stay default findings.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ int poll_pending(const int* p) {
  int v;
  asm volatile("ld.volatile.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Block b solves the rows listed for it in rows[b * per_block ...].
__global__ void row_counters_data_indexed(float* x, int* pending, const int* rows, const int* dep_start,
                                          const int* deps, int per_block) {
  for (int k = threadIdx.x; k < per_block; k += blockDim.x) {
    const int row = rows[blockIdx.x * per_block + k];
    while (poll_pending(&pending[row]) != 0) {}
    __threadfence_block();  // expect-strict: scope-too-narrow
    const float v = x[row];
    for (int j = dep_start[row]; j < dep_start[row + 1]; ++j) {
      const int d = deps[j];
      atomicAdd_block(&x[d], -v);
      __threadfence_block();  // expect-strict: scope-too-narrow
      atomicAdd(&pending[d], -1);
    }
  }
}

// Broken: the row waited on is the block's own by its index; its dependents' rows are the
// structure's, and their counters are other blocks' rows.
__global__ void row_counters_block_rows(float* x, int* pending, const int* dep_start, const int* deps,
                                        int per_block) {
  for (int k = threadIdx.x; k < per_block; k += blockDim.x) {
    const int row = blockIdx.x * per_block + k;
    while (poll_pending(&pending[row]) != 0) {}
    __threadfence_block();  // expect: scope-too-narrow
    const float v = x[row];
    for (int j = dep_start[row]; j < dep_start[row + 1]; ++j) {
      const int d = deps[j];
      atomicAdd_block(&x[d], -v);
      __threadfence_block();  // expect: scope-too-narrow
      atomicAdd(&pending[d], -1);
    }
  }
}
