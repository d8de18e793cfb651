// proxy-war, TMA tensor tile loads (cp.async.bulk.tensor.2d through a tensor
// map, raw inline asm written directly in the kernels), consumers read the
// tile with ldmatrix; one elected lane per consumer warp releases the stage.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

constexpr int kStages = 3;
constexpr int kTileBytes = 64 * 64 * 2;  // 64x64 bf16

__device__ __forceinline__ uint32_t to_smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

template <bool kFenced>
__device__ __forceinline__ void tma_ldmatrix_kernel(const void* tmap, uint32_t* out, int iters) {
  __shared__ alignas(1024) uint8_t tiles[kStages][kTileBytes];
  __shared__ alignas(8) uint64_t full[kStages], empty[kStages];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(to_smem(&full[s])));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 4;" ::"r"(to_smem(&empty[s])));
    }
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (warp == 4) {  // producer warp
    if (lane == 0) {
      for (int k = 0; k < iters; ++k) {
        int s = k % kStages;
        uint32_t parity = ((k / kStages) & 1) ^ 1;
        asm volatile(
            "{\n\t.reg .pred P1;\n\tLAB_WAIT:\n\t"
            "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
            "@P1 bra DONE;\n\tbra LAB_WAIT;\n\tDONE:\n\t}" ::"r"(to_smem(&empty[s])),
            "r"(parity)
            : "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(to_smem(&full[s])),
                     "r"(kTileBytes)
                     : "memory");
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %3}], [%4];" ::"r"(to_smem(tiles[s])),
            "l"(tmap), "r"(0), "r"(k * 64), "r"(to_smem(&full[s]))
            : "memory");
      }
    }
    return;
  }
  uint32_t acc = 0;
  for (int k = 0; k < iters; ++k) {
    int s = k % kStages;
    asm volatile(
        "{\n\t.reg .pred P1;\n\tLAB_WAIT:\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
        "@P1 bra DONE;\n\tbra LAB_WAIT;\n\tDONE:\n\t}" ::"r"(to_smem(&full[s])),
        "r"((k / kStages) & 1)
        : "memory");
    uint32_t a0, a1, a2, a3;
    const uint8_t* row = tiles[s] + warp * 2048 + (lane % 16) * 128 + (lane / 16) * 16;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(to_smem(row)));
    acc += a0 ^ a1 ^ a2 ^ a3;
    if (kFenced) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (lane == 0)
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(to_smem(&empty[s])) : "memory");
  }
  out[blockIdx.x * 128 + threadIdx.x] = acc;
}

// The expectations sit on the kernels' lines: the hand-off is in the shared
// body above, so its chain runs through the call below.
__global__ void tma_ldmatrix_no_fence(const void* tmap, uint32_t* out, int iters) {
  tma_ldmatrix_kernel<false>(tmap, out, iters);  // expect: proxy-war
}

__global__ void tma_ldmatrix_fenced(const void* tmap, uint32_t* out, int iters) {
  tma_ldmatrix_kernel<true>(tmap, out, iters);
}
