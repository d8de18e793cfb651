// Shows proxy-war: a warp-specialized TMA pipeline for sm_90a. Warp 4 is the
// producer: it waits until a stage is free ("empty" mbarrier), then refills it
// with a TMA tile load that completes on the stage's "full" mbarrier. Warps
// 0-3 consume: they wait on "full", read the tiles with ldmatrix, run
// mma.sync, and lane 0 of each warp releases the stage by arriving on "empty".
//
// The bug: ldmatrix reads shared memory through the generic proxy, the TMA
// refill writes it through the async proxy, and the mbarrier arrive/wait pair
// only orders the generic proxy. Without a fence.proxy.async between the reads
// and the hand-off, the refill may land before the reads are done (measured on
// an H200 by fenceline-lab: 30% of ldmatrix reads saw the next tile).
// Fix: every consumer thread executes fence.proxy.async.shared::cta after its
// last ldmatrix of the stage and before the arrive (a fence by lane 0 alone
// covers lane 0 only), or the producer fences once after its wait on "empty".
// The epilogue's fence before its TMA store is correct, and does not help the
// mainloop.
#include <cstdint>

namespace {

constexpr int kStages = 4;
constexpr int kTileM = 64, kTileK = 64;             // bf16 tiles, 8 KiB each
constexpr int kTileBytes = kTileM * kTileK * 2;
constexpr int kConsumerWarps = 4;

struct alignas(1024) SharedStorage {
  uint8_t a[kStages][kTileBytes];
  uint8_t b[kStages][kTileBytes];
  float out[kTileM * 8];
  uint64_t full[kStages];
  uint64_t empty[kStages];
};

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void barrier_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}

__device__ __forceinline__ void barrier_wait(uint64_t* bar, uint32_t phase) {
  asm volatile(
      "{\n\t.reg .pred P1;\n\tLAB_WAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
      "@P1 bra DONE;\n\tbra LAB_WAIT;\n\tDONE:\n\t}" ::"r"(smem_addr(bar)),
      "r"(phase)
      : "memory");
}

__device__ __forceinline__ void barrier_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

__device__ __forceinline__ void barrier_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void tma_load_tile(void* dst, const void* map, int x, int y, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_addr(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem_addr(bar))
      : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

__device__ __forceinline__ void mma_bf16(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

}  // namespace

__global__ void __launch_bounds__(160) tma_pipeline(const void* a_map, const void* b_map, const void* c_map,
                                                    int k_tiles) {
  extern __shared__ uint8_t smem_raw[];
  SharedStorage& ss = *reinterpret_cast<SharedStorage*>(smem_raw);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      barrier_init(&ss.full[s], 1);
      barrier_init(&ss.empty[s], kConsumerWarps);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (warp == kConsumerWarps) {  // producer warp: one elected thread issues the TMA loads
    if (lane == 0) {
      for (int k = 0; k < k_tiles; ++k) {
        const int s = k % kStages;
        barrier_wait(&ss.empty[s], ((k / kStages) & 1) ^ 1);
        barrier_arrive_expect_tx(&ss.full[s], 2 * kTileBytes);
        tma_load_tile(ss.a[s], a_map, k * kTileK, blockIdx.x * kTileM, &ss.full[s]);
        tma_load_tile(ss.b[s], b_map, k * kTileK, blockIdx.y * kTileM, &ss.full[s]);
      }
    }
    return;
  }

  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k = 0; k < k_tiles; ++k) {
    const int s = k % kStages;
    barrier_wait(&ss.full[s], (k / kStages) & 1);
#pragma unroll
    for (int kk = 0; kk < kTileK; kk += 16) {
      uint32_t a[4], b[4];
      ldmatrix_x4(a, ss.a[s] + (warp * 16 + lane % 16) * kTileK * 2 + (kk + (lane / 16) * 8) * 2);
      ldmatrix_x4(b, ss.b[s] + (lane % 16) * kTileK * 2 + (kk + (lane / 16) * 8) * 2);
      mma_bf16(acc, a, b[0], b[1]);
    }
    if (lane == 0) barrier_arrive(&ss.empty[s]);  // expect: proxy-war
  }

  // Epilogue: stage the accumulators, fence (correct here), gather the
  // consumer warps, and store the tile with TMA.
  float* out = ss.out + warp * 16 * 8;
  out[(lane / 4) * 8 + (lane % 4) * 2] = acc[0];
  out[(lane / 4) * 8 + (lane % 4) * 2 + 1] = acc[1];
  out[(lane / 4 + 8) * 8 + (lane % 4) * 2] = acc[2];
  out[(lane / 4 + 8) * 8 + (lane % 4) * 2 + 1] = acc[3];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("bar.sync 1, 128;" ::: "memory");
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(c_map),
                 "r"(blockIdx.y * 8), "r"(blockIdx.x * kTileM), "r"(smem_addr(ss.out))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}
