// A tensor map in global memory rewritten while TMA loads that read it may
// still be in flight, DeepGEMM k-grouped GEMM (SM90 weight gradient):
// https://github.com/deepseek-ai/DeepGEMM/pull/343 (fix, merged); the same
// gap in a copy of the kernel: https://github.com/deepseek-ai/DeepGEMM/pull/431
// (open), and in a Triton fork's grouped GEMM:
// https://github.com/facebookexperimental/triton/pull/680 (closed).
// The kernel walks several groups; when its scheduler switches group it
// rewrites the A/B tensor maps kept in global memory, "but it doesn't make
// sure that previous TMA loads have already finished reading the tensormaps
// at that point. A TMA load reading from a tensormap being modified
// concurrently corrupts the output". The fix drains the in-flight TMA loads
// before the maps are rewritten (#431: "so that in-flight TMA loads complete
// before the grouped tensormaps are published to GMEM"). Our kernel: one
// producer thread, a two-stage ring, the map's global address replaced with
// tensormap.replace and published with the tensormap proxy fences; our fixed
// twin drains by waiting for the stages still in flight (their full barriers)
// before the rewrite.
//
// Found by tensormap-war (branch recall26): the copy of iteration k - 1 reaches
// the tensormap.replace of iteration k with no wait of any kind on the way; a
// write of a tensor map must follow the completion of every earlier bulk
// tensor copy that reads it (its mbarrier phase waited, or its bulk group
// waited with wait_group.read) (PTX ISA, "Tensor map": a copy reads its map
// asynchronously, after the instruction is issued).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void wait_phase(uint64_t* bar, uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

template <bool kDrain>
__device__ __forceinline__ void grouped_mainloop(void* a_map, const uint64_t* group_base, const int* group_end,
                                                 float* out, int kblocks) {
  __shared__ alignas(128) float stage[2][128];
  __shared__ alignas(8) uint64_t full[2], empty[2];
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], 1);
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0 && lane == 0) {  // producer
    int group = 0;
    for (int k = 0; k < kblocks; ++k) {
      const int s = k & 1;
      if (k == group_end[group]) {  // the scheduler switches group: rewrite the map
        if (kDrain) {
          for (int j = k - 2 > 0 ? k - 2 : 0; j < k; ++j) wait_phase(&full[j & 1], (j >> 1) & 1);
        }
        ++group;
        const uint64_t base = group_base[group];
        asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(a_map), "l"(base) : "memory");  // expect: tensormap-war
        asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
        asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(a_map) : "memory");
      }
      if (k >= 2) wait_phase(&empty[s], ((k >> 1) - 1) & 1);
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared,
                                           &full[s], 512);
      asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                   ::"r"(smem(stage[s])), "l"(a_map), "r"(k * 128), "r"(smem(&full[s]))
                   : "memory");
    }
  } else if (warp == 1) {  // consumer
    float acc = 0.f;
    for (int k = 0; k < kblocks; ++k) {
      const int s = k & 1;
      wait_phase(&full[s], (k >> 1) & 1);
      for (int j = 0; j < 4; ++j) acc += stage[s][j * 32 + lane];
      cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
      __syncwarp();
      if (lane == 0) (void)cuda::ptx::mbarrier_arrive(&empty[s]);
    }
    out[blockIdx.x * 32 + lane] = acc;
  }
}

__global__ void grouped_gemm_rewrites_map_in_flight(void* a_map, const uint64_t* group_base, const int* group_end,
                                                    float* out, int kblocks) {
  grouped_mainloop<false>(a_map, group_base, group_end, out, kblocks);
}
__global__ void grouped_gemm_drains_before_rewrite(void* a_map, const uint64_t* group_base, const int* group_end,
                                                   float* out, int kblocks) {
  grouped_mainloop<true>(a_map, group_base, group_end, out, kblocks);
}
