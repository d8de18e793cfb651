// wgmma helpers for the proxy tests: a shared-memory matrix descriptor and one
// m64n64k16 bf16 MMA with both operands in shared memory (read through the
// async proxy), as sm_90a GEMM mainloops issue them.
#pragma once

#include <cstdint>

namespace proxy_test {

// No swizzle; leading byte offset 128, stride byte offset 256 (8x8 core matrices).
__device__ __forceinline__ uint64_t smem_desc(const void* p) {
  uint64_t addr = static_cast<uint64_t>(__cvta_generic_to_shared(p));
  return ((addr & 0x3FFFF) >> 4) | (uint64_t(128 >> 4) << 16) | (uint64_t(256 >> 4) << 32);
}

struct Accum {
  float d[32];
};

__device__ __forceinline__ void wgmma_m64n64k16(Accum& c, uint64_t descA, uint64_t descB) {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n\t}"
      : "+f"(c.d[0]), "+f"(c.d[1]), "+f"(c.d[2]), "+f"(c.d[3]), "+f"(c.d[4]), "+f"(c.d[5]), "+f"(c.d[6]),
        "+f"(c.d[7]), "+f"(c.d[8]), "+f"(c.d[9]), "+f"(c.d[10]), "+f"(c.d[11]), "+f"(c.d[12]), "+f"(c.d[13]),
        "+f"(c.d[14]), "+f"(c.d[15]), "+f"(c.d[16]), "+f"(c.d[17]), "+f"(c.d[18]), "+f"(c.d[19]), "+f"(c.d[20]),
        "+f"(c.d[21]), "+f"(c.d[22]), "+f"(c.d[23]), "+f"(c.d[24]), "+f"(c.d[25]), "+f"(c.d[26]), "+f"(c.d[27]),
        "+f"(c.d[28]), "+f"(c.d[29]), "+f"(c.d[30]), "+f"(c.d[31])
      : "l"(descA), "l"(descB)
      : "memory");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

}  // namespace proxy_test
