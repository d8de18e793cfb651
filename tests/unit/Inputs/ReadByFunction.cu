// Kernels for reading a module one function body at a time
// (tests/unit/PtxModuleReaderTest.cpp): helpers called by two kernels and by
// another helper, and inline asm whose comments hold braces, which the first
// pass must not count when it finds where each body ends.

__device__ __noinline__ int late_helper(int v);

__device__ __noinline__ int shared_helper(int v) {
  int r;
  // Braces in a comment of the asm text; nvcc pastes it as it is.
  asm volatile("{ // not a block: } }\n\t.reg .b32 t;\n\tadd.s32 t, %1, 1;\n\tmov.b32 %0, t;\n\t}" : "=r"(r) : "r"(v));
  return r * 3;
}

__device__ __noinline__ int nested_helper(int v) { return shared_helper(v) + late_helper(v); }

extern "C" __global__ void first_caller(int* out, int v) {
  asm volatile("/* { */");
  out[threadIdx.x] = shared_helper(v) + late_helper(v + 1);
}

extern "C" __global__ void second_caller(int* out, int v) { out[threadIdx.x] = nested_helper(v); }

__device__ __noinline__ int late_helper(int v) {
  __syncthreads();
  return v ^ 0x5a;
}
