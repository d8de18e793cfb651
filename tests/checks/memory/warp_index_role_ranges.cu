// Issue 33, shape C: a warp index read back from a shuffle
// (`__shfl_sync(~0u, threadIdx.x / 32, 0)`, CUTLASS's
// canonical_warp_idx_sync) and tested by role branches (`warp < 2`,
// `warp == 2`, `warp == 3`, else) is narrowed inside each role as %tid.x is,
// values derived from it too (`warp - 4` in the last role). Per-warp buffers
// of one role then do not meet another role's bytes. Here the role's warps
// each write their own buffer and fence, warp 2 writes a small table next to
// the buffers with no proxy fence, all meet at __syncthreads(), and lane 0 of
// each role warp stores its buffer by a bulk copy. Twins: the role bound that lets warp 2 (or warp 3, whose
// `warp - 4` is -1) into the role, so that its buffer does meet the table.
// Kernels of our own.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void bulk_store(float* dst, const void* src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem(src)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ uint32_t warp_index() { return __shfl_sync(0xffffffffu, threadIdx.x / 32, 0); }

constexpr uint32_t kBuffer = 4096;  // bytes per warp
constexpr uint32_t kTable = 1024;   // the per-warp buffers start after the table

// Every lane writes this warp's buffer and fences.
__device__ __forceinline__ void fill_own(uint8_t* buffer, uint32_t lane) {
  float* b = reinterpret_cast<float*>(buffer);
  for (int j = 0; j < 32; ++j) b[j * 32 + lane] = float(j + lane);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// 1. Correct: warps 0 and 1 use buffers [1024, 9216); warp 2's table lies
// at [9216, 9344).
__global__ void __launch_bounds__(384) dispatch_warps_below_two(float* out) {
  extern __shared__ __align__(128) uint8_t buf[];
  const uint32_t warp = warp_index(), lane = threadIdx.x % 32;
  if (warp < 2) fill_own(buf + kTable + warp * kBuffer, lane);
  if (warp == 2) reinterpret_cast<float*>(buf + kTable + 2 * kBuffer)[lane] = float(lane);
  __syncthreads();
  if (warp < 2 && lane == 0) bulk_store(out + warp * 1024, buf + kTable + warp * kBuffer, kBuffer);
}

// 2. Broken twin of 1: warps 0-2 run the role, and warp 2's buffer holds the
// table it wrote without a fence.
__global__ void __launch_bounds__(384) dispatch_warps_below_three(float* out) {
  extern __shared__ __align__(128) uint8_t buf[];
  const uint32_t warp = warp_index(), lane = threadIdx.x % 32;
  if (warp < 3) fill_own(buf + kTable + warp * kBuffer, lane);
  if (warp == 2) reinterpret_cast<float*>(buf + kTable + 2 * kBuffer)[lane] = float(lane);
  __syncthreads();
  if (warp < 3 && lane == 0) bulk_store(out + warp * 1024, buf + kTable + warp * kBuffer, kBuffer);  // expect: proxy-raw
}

// 3. Correct: the math role is every warp from 4 on (after `< 2`, `== 2`,
// `== 3`); its warps index their buffers by warp - 4: [1024, 33792). Warp 2's
// table lies at [896, 1024).
__global__ void __launch_bounds__(384) math_warps_minus_four(float* out, float* other) {
  extern __shared__ __align__(128) uint8_t buf[];
  const uint32_t warp = warp_index(), lane = threadIdx.x % 32;
  if (warp >= 4) fill_own(buf + kTable + (int(warp) - 4) * int(kBuffer), lane);
  if (warp == 2) reinterpret_cast<float*>(buf + kTable - 128)[lane] = float(lane);
  __syncthreads();
  if (warp < 2) {
    other[threadIdx.x] = 1.0f;
  } else if (warp == 2) {
    other[threadIdx.x] = 2.0f;
  } else if (warp == 3) {
    other[threadIdx.x] = 3.0f;
  } else {
    const uint32_t math = warp - 4;
    if (lane == 0) bulk_store(out + math * 1024, buf + kTable + math * kBuffer, kBuffer);
  }
}

// 4. Broken twin of 3: warp 3 joins the math role, its `warp - 4` is -1 and
// its buffer [-3072, 1024) holds warp 2's table.
__global__ void __launch_bounds__(384) math_warps_from_three(float* out, float* other) {
  extern __shared__ __align__(128) uint8_t buf[];
  const uint32_t warp = warp_index(), lane = threadIdx.x % 32;
  if (warp >= 3) fill_own(buf + kTable + (int(warp) - 4) * int(kBuffer), lane);
  if (warp == 2) reinterpret_cast<float*>(buf + kTable - 128)[lane] = float(lane);
  __syncthreads();
  if (warp < 2) {
    other[threadIdx.x] = 1.0f;
  } else if (warp == 2) {
    other[threadIdx.x] = 2.0f;
  } else {
    const int math = int(warp) - 4;
    if (lane == 0) bulk_store(out + (math + 1) * 1024, buf + kTable + math * int(kBuffer), kBuffer);  // expect: proxy-raw
  }
}
