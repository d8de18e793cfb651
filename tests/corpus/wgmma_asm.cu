// wgmma through inline assembly, as CUTLASS-style kernels write it: fences,
// an asynchronous warpgroup MMA with a block-local predicate, commit and
// wait, and setmaxnreg for producer/consumer warpgroups. sm_90a only.
#include <cstdint>

__device__ __forceinline__ void wgmma_m64n8k16(float (&d)[4], uint64_t desc_a, uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

extern "C" __global__ void __launch_bounds__(384) corpus_wgmma(float* out, uint64_t desc_a, uint64_t desc_b, int k_tiles) {
  int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k = 0; k < k_tiles; ++k) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    wgmma_m64n8k16(d, desc_a + 2 * k, desc_b + 2 * k, k > 0);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  }
  float* row = out + (blockIdx.x * 256 + threadIdx.x - 128) * 4;
  for (int i = 0; i < 4; ++i) row[i] = d[i];
}
