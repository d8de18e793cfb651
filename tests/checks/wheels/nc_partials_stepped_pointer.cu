// Shape TW of session 27's held-out look (docs/real-code.md): cuDNN's semiPersist batch norm.
// Each block stores its partial sums into a workspace slice, arrives at a grid barrier (fence,
// atomic, a volatile spin, fence, block barrier), and then every block reads all the partials
// with ld.global.nc (__ldg) through one pointer stepped by a row per trip: a non-coherent read
// of bytes other blocks wrote during the kernel, which no fence makes coherent (a warning, true).
// Block 0 then updates the running mean with a read of its own output (__ldg) and a store.
// Main (dcd081d) named the running-mean read as the example: the stepped pointer's root was
// unknown (its two definitions, the start and `p += row`, gave no one object), so the partials'
// read was not known to read a buffer the kernel writes. Session 28: a pointer stepped in a loop
// keeps the root of the definitions it steps from (ValueIdentity::stepsOwnValue), and the
// finding names the read that makes it true, with the workspace store as the data (main reported
// nothing here). The twin `partials_read_coherent` reads them with __ldcg after the fence: safe.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: not %fenceline check --arch sm_90a %s 2>&1 | FileCheck %s

__device__ __forceinline__ unsigned poll_volatile(const unsigned* bar) {
  unsigned v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(bar) : "memory");  // expect: acquire-missing
  return v;
}

__global__ void partials_then_all_blocks_read(const float* __restrict__ x, float* __restrict__ ws,
                                              float* __restrict__ mean, unsigned* bar, unsigned target, int n) {
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i];
  ws[blockIdx.x * blockDim.x + threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(bar, 1);
    while (poll_volatile(bar) < target) {
    }
  }
  __threadfence();
  __syncthreads();
  float t = 0.f;
  const float* end = ws + gridDim.x * blockDim.x;
#pragma unroll 1
  for (const float* p = ws + threadIdx.x; p < end; p += blockDim.x)
    // CHECK: nc_partials_stepped_pointer.cu:[[@LINE+1]]:{{[0-9]+}}: note: non-coherent load
    t += __ldg(p);
  if (blockIdx.x == 0) mean[threadIdx.x] = 0.9f * __ldg(&mean[threadIdx.x]) + 0.1f * t;
}

// The twin reads the partials with coherent loads (__ldcg) after the fence: safe, no finding.
__global__ void partials_read_coherent(const float* __restrict__ x, float* __restrict__ ws,
                                       float* __restrict__ mean, unsigned* bar, unsigned target, int n) {
  float s = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i];
  ws[blockIdx.x * blockDim.x + threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(bar, 1);
    while (*(volatile unsigned*)bar < target) {
    }
  }
  __threadfence();
  __syncthreads();
  float t = 0.f;
  const float* end = ws + gridDim.x * blockDim.x;
#pragma unroll 1
  for (const float* p = ws + threadIdx.x; p < end; p += blockDim.x) t += __ldcg(p);
  if (blockIdx.x == 0) mean[threadIdx.x] = 0.9f * __ldg(&mean[threadIdx.x]) + 0.1f * t;
}
