// scope-too-narrow for the fix tests: a flag another CTA raises, polled with
// ld.acquire.cta in inline asm; --fix widens the scope on the same line.
__global__ void wait_cta_scope(int* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) asm volatile("st.release.gpu.global.u32 [%0], 1;" ::"l"(flag) : "memory");
    return;
  }
  int seen = 0;
  while (seen == 0) {
    asm volatile("ld.acquire.cta.global.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory");
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = data[threadIdx.x];
}
