// Unit-test input for the PTX parser (tests/unit/PtxParserTest.cpp): one
// kernel per syntactic shape the front end must handle. The tests look
// things up by kernel name, so keep the names stable.
#include <cstdint>

__device__ unsigned shapes_counter = 5;
__device__ int shapes_table[3] = {1, 2, 3};
extern __shared__ float shapes_dynamic_smem[];

// A noinline helper: `.func (.param .b32 func_retval0) name(...)` and call.uni.
__device__ __noinline__ int shapes_helper(int a, int b) { return a * b + 1; }

// Indirect call through a pointer: a `.callprototype`.
__device__ __noinline__ int shapes_twice(int a) { return 2 * a; }
__device__ int (*volatile shapes_fn)(int) = shapes_twice;

// Inline asm with a block-local predicate and a label, inlined twice.
__device__ __forceinline__ int shapes_spin(int x) {
  int r;
  asm volatile(
      "{\n\t.reg .pred p;\n"
      "LAB_WAIT:\n\t"
      "setp.eq.s32 p, %1, 0;\n\t"
      "@p bra LAB_WAIT;\n\t"
      "mov.b32 %0, %1;\n}"
      : "=r"(r)
      : "r"(x));
  return r;
}

// Inline asm with a predicate pair and a sink.
__device__ __forceinline__ int shapes_pair(int a, int b) {
  int r;
  asm volatile(
      "{\n\t.reg .pred lo, hi;\n\t"
      "setp.lt.s32 lo|hi, %1, %2;\n\t"
      "selp.b32 %0, 1, 0, hi;\n}"
      : "=r"(r)
      : "r"(a), "r"(b));
  return r;
}

extern "C" __global__ void __launch_bounds__(128, 2) shapes_calls(int* out, float f) {
  int t = threadIdx.x;
  shapes_dynamic_smem[t] = f * 1.5f;
  __syncthreads();
  int v = shapes_helper(shapes_table[t % 3], shapes_counter) + shapes_fn(t);
  out[t] = v + shapes_spin(t) + shapes_spin(t + 1) + shapes_pair(t, -7);
}

extern "C" __global__ void shapes_vectors(const float4* __restrict__ in, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 a = in[i];
  float4 b = in[i + 64];
  out[i] = make_float4(a.x + b.w, a.y - 1.0f, a.z * 0.25f, -a.w);
}

extern "C" __global__ void shapes_loop(int* data, int n) {
#pragma unroll 1
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (data[i] < 0) atomicAdd(&data[0], 1);
  }
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) shapes_cluster(int* out) {
  __shared__ int local[32];
  local[threadIdx.x % 32] = threadIdx.x;
  __syncthreads();
  out[blockIdx.x] = local[(threadIdx.x + 1) % 32];
}

// Immediates in every spelling: 0d doubles from C++, hex and U-suffixed
// integers from inline asm; `.maxnreg` from __maxnreg__.
extern "C" __global__ void __maxnreg__(64) shapes_immediates(double* d, unsigned* u) {
  d[threadIdx.x] = d[threadIdx.x] * 1.5 + 0.25;
  unsigned v = u[threadIdx.x], r;
  asm volatile("{\n\t.reg .b32 t;\n\tand.b32 t, %1, 0xF0F0;\n\tadd.u32 %0, t, 7U;\n}" : "=r"(r) : "r"(v));
  u[threadIdx.x] = r;
}

// `.maxclusterrank` from the third __launch_bounds__ argument.
extern "C" __global__ void __launch_bounds__(256, 1, 4) shapes_cluster_rank(int* out) { out[threadIdx.x] = 1; }
