// False positive found in the real-code corpus (docs/real-code.md, "join after a block-0
// branch"): Triton's single-pass scan with decoupled look-back (tt_chained_scan_sm90,
// tools/realcode/triton/scan.py). Thread 0 of every block publishes its block's status in
// its own slot, `flag[blockIdx.x]`: 1 (aggregate ready) with a release exchange, then, after
// walking back over the predecessors, 2 (prefix ready). Block 0 has no predecessor and skips
// the walk: `if (blockIdx.x == 0) goto publish;`. The second exchange sits in the join block
// where that branch and the walk's exits meet; barrier-init-race once read the branch as
// "this block runs only in block 0" (the join is the branch's target, which dominates it) and
// took the per-block exchange for block 0 initializing a word the others update. A branch
// condition holds in a block only if every path to the block takes that branch.
// The broken twin is a real initialization inside the kernel: block 0 alone (the condition
// holds on the only path) resets a status word the other blocks exchange into.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ void publish(int* slot, int state) {
  asm volatile("atom.release.gpu.global.exch.b32 _, [%0], %1;" ::"l"(slot), "r"(state) : "memory");
}

__device__ __forceinline__ int observe(const int* slot) {
  int state;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(state) : "l"(slot) : "memory");
  return state;
}

// Clean: every block's thread 0 writes only its own slot; block 0 skips the walk.
__global__ void lookback_scan(const float* x, float* aggregate, float* prefix, int* flag) {
  if (threadIdx.x != 0) return;
  const unsigned block = blockIdx.x;
  const float sum = x[block];
  aggregate[block] = sum;
  publish(&flag[block], 1);
  float exclusive = 0.f;
  if (block != 0) {
    unsigned prev = block - 1;
    bool walking = true;
    do {
      int state = observe(&flag[prev]);
      if (state == 2) {
        exclusive += prefix[prev];
        walking = false;
      } else if (state == 1) {
        exclusive += aggregate[prev];
        walking = prev-- != 0;
      }
    } while (walking);
  }
  prefix[block] = exclusive + sum;
  publish(&flag[block], 2);
}

// Broken twin: block 0 alone resets a status word that every block exchanges into.
__global__ void status_reset_in_kernel(const float* x, float* out, int* status) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) publish(status, 0);  // expect: barrier-init-race
  out[blockIdx.x] = x[blockIdx.x];
  // A flag for the host (no poll here): data, then an exchange of a constant.
  atomicExch(status, 1);  // expect-strict: release-missing
}
