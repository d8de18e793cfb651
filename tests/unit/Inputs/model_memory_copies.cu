// Copy extents for the memory-analysis unit tests (issue 11, shape 4): a bulk
// copy's extent is its size operand, also when the size is a bounded runtime
// value (min(n, 2048) * 4 <= 8192) and unknown when unbounded; a tensor
// copy's is the expect_tx byte count announced on its barrier (unknown when
// that count is a runtime value); a bulk store (shared -> global) reads its
// source range from shared memory.
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, uint32_t bytes, void* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_u32(dst)),
      "l"(src), "r"(bytes), "r"(smem_u32(bar))
      : "memory");
}

// Buffer: data [0, 8192), barrier at 8192, a flag word at 8200.
extern "C" __global__ void bulk_sizes(const float* src, float* out, unsigned n) {
  extern __shared__ __align__(1024) uint8_t smem[];
  if (threadIdx.x == 0) {
    bulk_copy(smem, src, min(n, 2048u) * 4, smem + 8192);  // extent <= 8192
    bulk_copy(smem, src, n * 4, smem + 8192);              // extent unknown
    *reinterpret_cast<uint32_t*>(smem + 8200) = 1;
  }
  __syncthreads();
  // Bulk store of the first 4096 bytes to out.
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 4096;" ::"l"(out), "r"(smem_u32(smem))
                 : "memory");
}

// Tensor copies: one barrier announced with a constant count, another with a
// runtime count (bytes): extents 16384 and unknown.
extern "C" __global__ void tensor_counts(const void* tmap, float* out, unsigned bytes) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t known = smem_u32(smem + 32768), runtime = smem_u32(smem + 32776);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16384;" ::"r"(known) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smem_u32(smem)),
        "l"(tmap), "r"(0), "r"(0), "r"(known)
        : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(runtime), "r"(bytes) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smem_u32(smem + 16384)),
        "l"(tmap), "r"(0), "r"(64), "r"(runtime)
        : "memory");
  }
  __syncthreads();
  out[threadIdx.x] = reinterpret_cast<float*>(smem)[threadIdx.x];
}

// Two tensor copies (an A and a B tile of 8192 bytes each) complete on one
// barrier that announces both (expect_tx 16384). Each copy writes one stage
// of its ring: A [8192*s, +8192) in [0, 32768), B 32768 + [8192*s, +8192),
// s = k & 3. The count alone (16384 per copy) would let A's last stage reach
// into B's ring.
extern "C" __global__ void tensor_pair(const void* tmapA, const void* tmapB, float* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    const int s = k & 3;
    const uint32_t bar = smem_u32(smem + 65536 + 8 * s);
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16384;" ::"r"(bar) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
              smem_u32(smem + s * 8192)),
          "l"(tmapA), "r"(0), "r"(k * 64), "r"(bar)
          : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
              smem_u32(smem + 32768 + s * 8192)),
          "l"(tmapB), "r"(0), "r"(k * 64), "r"(bar)
          : "memory");
    }
    __syncthreads();
  }
  out[threadIdx.x] = reinterpret_cast<float*>(smem)[threadIdx.x];
}
