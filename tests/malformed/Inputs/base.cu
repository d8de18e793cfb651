// The kernel whose nvcc output (base.ptx, `nvcc -ptx -lineinfo -arch=sm_90a`)
// the malformed-input tests damage. Regenerate base.ptx with that command if
// this file changes; the .ptx tests in the parent folder are edited copies.
__device__ __forceinline__ int wait_nonzero(const volatile int* flag) {
  int v;
  asm volatile(
      "{\n\t.reg .pred p;\n"
      "LAB_WAIT:\n\t"
      "ld.volatile.global.u32 %0, [%1];\n\t"
      "setp.eq.s32 p, %0, 0;\n\t"
      "@p bra LAB_WAIT;\n}"
      : "=r"(v)
      : "l"(flag));
  return v;
}

extern "C" __global__ void base_kernel(int* out, const volatile int* flag, int n) { if (blockIdx.x == 0) { out[threadIdx.x] = 1; __threadfence(); *const_cast<volatile int*>(flag) = 1; return; }  // block 0 produces: the hazard's partner is in the kernel
  int sum = wait_nonzero(flag);
  for (int i = threadIdx.x; i < n; i += blockDim.x) sum += out[i];
  out[threadIdx.x] = sum;
}
