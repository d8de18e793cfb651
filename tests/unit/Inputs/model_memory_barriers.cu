// Barriers of several rings in one array for the memory-analysis unit tests
// (issue 11, shape 2): bars[0 + q] for an outer (Q) ring of 2 stages,
// bars[2 + s] (full) and bars[6 + s] (empty) for an inner (K/V) ring of 4.
// With q and s bounded, the rings' words are apart: the outer release
// bars[q] is NoAlias with every inner arrive, and is the same word as the
// outer wait of its trip.
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred P1;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
      "@!P1 bra WAIT;\n\t}" ::"r"(smem_u32(bar)),
      "r"(parity)
      : "memory");
}

extern "C" __global__ void barrier_rings(float* out, int outer, int inner) {
  __shared__ __align__(8) uint64_t bars[10];
  float acc = 0.f;
#pragma unroll 1
  for (int o = 0; o < outer; ++o) {
    const int q = o & 1;
    wait_parity(&bars[q], (o >> 1) & 1);
#pragma unroll 1
    for (int i = 0; i < inner; ++i) {
      const int step = o * inner + i;
      const int s = step & 3;
      wait_parity(&bars[2 + s], (step >> 2) & 1);
      acc += static_cast<float>(s);
      arrive(&bars[6 + s]);
    }
    arrive(&bars[q]);
  }
  out[threadIdx.x] = acc;
}
