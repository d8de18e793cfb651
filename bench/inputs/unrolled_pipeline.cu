// Benchmark input: a large PTX file of the kind fenceline meets in practice.
// A TMA-style pipeline (mbarrier waits through cuda::ptx, shared-memory
// arithmetic, warp shuffles, fences) is unrolled UNROLL times inside
// KERNELS template instantiations, with everything inlined so -lineinfo
// emits long .loc inline chains and a large .debug_str. Pick the size with
// -DUNROLL=N (default 256) and -DKERNELS=N (default 16).
#include <cuda/ptx>
#include <cstdint>

#ifndef UNROLL
#define UNROLL 256
#endif
#ifndef KERNELS
#define KERNELS 16
#endif

namespace ptx = cuda::ptx;

__device__ __forceinline__ void wait_phase(uint64_t* bar, uint32_t phase) {
  while (!ptx::mbarrier_try_wait_parity(bar, phase)) {
  }
}

__device__ __forceinline__ float stage_math(const float* smem, int stage, int lane) {
  float v = smem[(stage * 32 + lane) % 1024];
  v = fmaf(v, 1.0001f, __shfl_xor_sync(0xffffffffu, v, stage & 31));
  return v;
}

template <int Variant>
__global__ void bench_pipeline(float* out, const float* in, int n) {
  __shared__ alignas(128) float smem[1024];
  __shared__ alignas(8) uint64_t bars[4];
  int lane = threadIdx.x & 31;
  if (threadIdx.x < 4) ptx::mbarrier_init(&bars[threadIdx.x], 1);
  __syncthreads();
  float acc = in[blockIdx.x * blockDim.x + threadIdx.x] + Variant;
#pragma unroll
  for (int s = 0; s < UNROLL; ++s) {
    uint64_t* bar = &bars[s & 3];
    if (lane == 0) {
      smem[(s * 7 + threadIdx.x) % 1024] = acc;
      ptx::fence_proxy_async(ptx::space_shared);
      ptx::mbarrier_arrive(bar);
    }
    wait_phase(bar, (s >> 2) & 1);
    acc += stage_math(smem, s + Variant, lane);
    if (acc > n) __threadfence_block();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <int... Is>
struct Instantiate;
template <int I, int... Is>
struct Instantiate<I, Is...> {
  static void run(float* o, const float* i, int n) {
    bench_pipeline<I><<<1, 32>>>(o, i, n);
    Instantiate<Is...>::run(o, i, n);
  }
};
template <>
struct Instantiate<> {
  static void run(float*, const float*, int) {}
};

template <int... Is>
void launchAll(float* o, const float* i, int n, std::integer_sequence<int, Is...>) {
  Instantiate<Is...>::run(o, i, n);
}

void launch(float* o, const float* i, int n) { launchAll(o, i, n, std::make_integer_sequence<int, KERNELS>()); }
