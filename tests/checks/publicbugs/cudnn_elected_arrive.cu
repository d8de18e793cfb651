// Shape 3 (a release by a thread other than the writers), cuDNN frontend
// SM100 DSA indexer backward: https://github.com/NVIDIA/cudnn-frontend/pull/426
// (merged). All 32 lanes of the load warp store weights to shared memory,
// execute a proxy fence, and one elected lane arrives on a "weights loaded"
// mbarrier (arrival count 1); the compute warps wait on it and read the
// weights with plain shared loads. The arrive releases the elected lane's own
// stores only; the proxy fence orders proxies, not threads. The fix
// initializes the barrier with an arrival count of 32 and lets every lane
// arrive. Our kernel: cuda::ptx for the barrier, elect.sync for the election.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ bool elect_one() {
  uint32_t elected;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(elected));
  return elected != 0;
}

template <bool kEveryLane>
__device__ __forceinline__ void weights_handoff(const float* weights, float* out) {
  __shared__ float s_weights[32 * 4];
  __shared__ alignas(8) uint64_t loaded;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&loaded, kEveryLane ? 32 : 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0) {  // the load warp
    for (int j = 0; j < 4; ++j) s_weights[j * 32 + lane] = weights[j * 32 + lane];
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // orders proxies, not threads
    if (kEveryLane) {
      (void)cuda::ptx::mbarrier_arrive(&loaded);
    } else if (elect_one()) {
      (void)cuda::ptx::mbarrier_arrive(&loaded);  // expect: elected-arrive
    }
  } else {  // the compute warps
    while (!cuda::ptx::mbarrier_try_wait_parity(&loaded, 0)) {
    }
    out[threadIdx.x] = s_weights[(threadIdx.x * 5) % 128];
  }
}

__global__ void weights_elected_arrive(const float* weights, float* out) { weights_handoff<false>(weights, out); }
__global__ void weights_every_lane_arrives(const float* weights, float* out) { weights_handoff<true>(weights, out); }
