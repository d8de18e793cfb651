// Calls to noinline helpers: the model inlines them into the kernel
// (tests/unit/ModelInlineTest.cpp).

// Stores into shared memory through a pointer the caller passes.
__device__ __noinline__ void fill(int* buf, int v) { buf[threadIdx.x] = v; }

// Returns a value computed from its parameter.
__device__ __noinline__ int twice(int v) { return v * 2 + 1; }

// A helper that itself calls a helper (two levels of inlining).
__device__ __noinline__ void outer_helper(int* buf, int v) {
  fill(buf, twice(v));
  __syncthreads();
}

extern "C" __global__ void split_hazard(int* out) {
  __shared__ int buf[256];
  fill(buf, 3);
  __syncthreads();
  out[threadIdx.x] = buf[(threadIdx.x + 1) % 256];
}

extern "C" __global__ void returns_value(int* out, int v) { out[0] = twice(v); }

extern "C" __global__ void two_levels(int* out) {
  __shared__ int buf[256];
  outer_helper(buf, 5);
  out[threadIdx.x] = buf[threadIdx.x];
}

// Recursion (a tree walk nvcc cannot turn into a loop) stays a call.
__device__ __noinline__ int depth(const int* tree, int node) {
  if (node < 0) return 0;
  int l = depth(tree, tree[2 * node]);
  int r = depth(tree, tree[2 * node + 1]);
  return 1 + (l > r ? l : r);
}
extern "C" __global__ void recursive(const int* tree, int* out) { out[0] = depth(tree, 0); }

// A call through a function pointer stays a call.
typedef int (*Op)(int);
__device__ __noinline__ int inc(int v) { return v + 1; }
__device__ __noinline__ int dec(int v) { return v - 1; }
extern "C" __global__ void indirect(int* out, int which) {
  Op op = which ? inc : dec;
  out[0] = op(out[1]);
}
