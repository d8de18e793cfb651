// Regression kernels for shapes of real code (the corpus of
// /work/scratch/realcode, CUTLASS 4.2 sm_90a GEMMs) that the new checks must
// stay silent on. Both are correct.
//  1. CUTLASS's sm90 TMA epilogue: stage buffers carved out of dynamic shared
//     memory, an unrolled loop over subtiles, the issuing thread's
//     predicate recomputed per subtile, store / commit / wait_group.read 1 in
//     separate guarded blocks, named barriers, and a store tail
//     (wait_group.read 0) guarded by a flag: bulk-store-reuse must follow the
//     issuer's predicate and take the ring depth from wait_group.read 1.
//  2. Stream-K: a TMA tensor store of the output tile, then the partial sums of
//     a workspace released with fence + red for a peer CTA that reads them
//     with generic loads: the release is not about the tensor store
//     (proxy-global's reverse direction needs a read that may alias it).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void named_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void tma_store_2d(const void* map, uint32_t src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(map), "r"(src),
               "r"(x), "r"(y)
               : "memory");
}

__global__ void cutlass_epilogue_ring(const __grid_constant__ uint64_t map, const float* acc, int tiles) {
  extern __shared__ __align__(128) float stage[];  // 2 buffers of 64 x 32 floats
  bool issued = false;
  for (int tile = 0; tile < tiles; ++tile) {
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      float* buf = stage + (s % 2) * 2048;
      for (int i = threadIdx.x; i < 2048; i += 128) buf[i] = acc[(tile * 4 + s) * 2048 + i];
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      named_barrier(1, 128);
      const bool issuer = (threadIdx.x & 127) == 0;
      if (issuer) {
        tma_store_2d(&map, smem(buf), s * 64, tile * 32);
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        issued = true;
      }
      if (issuer) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
      named_barrier(1, 128);
    }
  }
  if (issued) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

__global__ void streamk_tensor_store_then_flag(const __grid_constant__ uint64_t map, float* workspace, int* flags,
                                               float* out) {
  __shared__ __align__(128) float tile[2048];
  if (blockIdx.x % 2 == 0) {
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) tile[i] = float(i);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      tma_store_2d(&map, smem(tile), 0, blockIdx.x * 32);
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
    workspace[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;  // partial sums for the peer
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(&flags[blockIdx.x / 2], 1);
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  } else {
    if (threadIdx.x == 0)
      while (atomicAdd(&flags[blockIdx.x / 2], 0) == 0) {
      }
    __syncthreads();
    __threadfence();
    out[blockIdx.x * blockDim.x + threadIdx.x] = workspace[(blockIdx.x - 1) * blockDim.x + threadIdx.x];
  }
}
