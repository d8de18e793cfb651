// Open front-end bug (docs/real-code.md, "Coverage of the front end"): shape found in TileLang
// 0.1.15's TMA store (tl_templates/cuda/copy_sm90.h, tl_flash_attention_fwd_sm90): the asm string
// is written "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group " ".L2::cache_hint [...]",
// so the PTX has a space between two modifiers of the opcode. ptxas accepts it; fenceline stops
// with "expected an operand, found '.L2::cache_hint'". The kernel itself is correct (the tile is
// written with generic stores, fenced, then stored by TMA and waited for before exit), so the
// expectation is no diagnostic.
// XFAIL: *
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void tma_store_hinted(const void* map, int x, int y, const void* src, uint64_t hint) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
      ".L2::cache_hint [%0, {%2, %3}], [%1], %4;" ::"l"(map),
      "r"(smem(src)), "r"(x), "r"(y), "l"(hint)
      : "memory");
}

__global__ void store_tile_hinted(const __grid_constant__ uint64_t map_storage, const float* in) {
  __shared__ alignas(128) float tile[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) tile[i] = in[blockIdx.x * 1024 + i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_hinted(&map_storage, 0, blockIdx.x * 32, tile, 0x12F0000000000000ull);
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}
