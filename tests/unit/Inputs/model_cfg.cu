// Control-flow shapes for the model's CFG, dominator and loop tests
// (tests/unit/ModelCfgTest.cpp). Compiled to PTX at build time.

// A rolled loop with a data-dependent trip count: one natural loop.
extern "C" __global__ void rolled_loop(int* out, int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += out[i] * i;
  out[0] = sum;
}

// A fully unrolled loop: no loop left.
extern "C" __global__ void unrolled_loop(int* out) {
  int sum = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) sum += out[i + threadIdx.x];
  out[threadIdx.x] = sum;
}

// An if/else diamond: the join post-dominates the branch.
extern "C" __global__ void diamond(int* out, int a) {
  int v;
  if (a > 3) {
    v = out[1] * 7;
  } else {
    v = out[2] + 9;
  }
  out[0] = v;
}

// Two nested loops.
extern "C" __global__ void nested_loops(int* out, int n, int m) {
  int sum = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) sum += out[i * m + j];
  out[0] = sum;
}

// A spin loop in inline asm with its own labels, used twice: each copy
// repeats the label names inside its { } block.
__device__ __forceinline__ void spin(const unsigned* flag) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      ".reg .b32 v;\n"
      "WAIT:\n"
      "ld.acquire.gpu.global.u32 v, [%0];\n"
      "setp.eq.u32 p, v, 0;\n"
      "@p bra WAIT;\n"
      "}\n" ::"l"(flag)
      : "memory");
}

extern "C" __global__ void asm_labels(const unsigned* a, const unsigned* b, int* out) {
  spin(a);
  out[0] = 1;
  spin(b);
  out[1] = 2;
}

// A loop that never exits: post-dominators must not crash.
extern "C" __global__ void forever(volatile int* out) {
  if (threadIdx.x == 0) return;
  for (;;) out[0] = out[0] + 1;
}

// An early return under a predicate.
extern "C" __global__ void early_exit(int* out, int n) {
  if (threadIdx.x >= n) return;
  out[threadIdx.x] = n;
}
