// Issue 30, shape 7, general form of cuDNN frontend #1049
// (../publicbugs/cudnn_staging_bulk_reduce.cu): many threads write the
// shared-memory source of a bulk store (or bulk reduction) that fewer threads
// issue, with nothing synchronizing the writers and the issuer. The writers'
// fence.proxy.async orders only their own accesses: the issue is not ordered
// after the other threads' writes (proxy-raw). The issuer's
// cp.async.bulk.wait_group.read holds only the issuer back: other threads that
// reach the next round's writes with no barrier after that wait overwrite the
// source while the copy may still read it (bulk-store-reuse).
// Shapes: lane 0 of each warp storing its warp's tile (cuda::ptx), thread 0
// storing after a barrier before the store but none after its wait (inline
// asm), each thread storing its own row (silent: every writer is its own
// issuer), and the fixed forms.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// 1. Each warp writes its 32x4 tile; lane 0 stores it with a bulk copy, with
// no __syncwarp() between (proxy-raw), and the next round's writes follow
// lane 0's wait with none either (bulk-store-reuse). Fixed: __syncwarp()
// after the writes and after the wait.
__global__ void lane0_stores_warp_tile(const float* in, float* out, int rounds) {
  __shared__ alignas(128) float tile[4][128];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int r = 0; r < rounds; ++r) {
    for (int j = 0; j < 4; ++j) tile[warp][j * 32 + lane] = in[(r * 4 + warp) * 128 + j * 32 + lane] + 1.0f;  // expect: bulk-store-reuse
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    if (lane == 0) {
      cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, out + (r * 4 + warp) * 128, tile[warp], 512);  // expect: proxy-raw
      cuda::ptx::cp_async_bulk_commit_group();
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
    }
  }
}
__global__ void lane0_stores_warp_tile_synced(const float* in, float* out, int rounds) {
  __shared__ alignas(128) float tile[4][128];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int r = 0; r < rounds; ++r) {
    for (int j = 0; j < 4; ++j) tile[warp][j * 32 + lane] = in[(r * 4 + warp) * 128 + j * 32 + lane] + 1.0f;
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncwarp();
    if (lane == 0) {
      cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, out + (r * 4 + warp) * 128, tile[warp], 512);
      cuda::ptx::cp_async_bulk_commit_group();
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
    }
    __syncwarp();
  }
}

// 2. A barrier gathers the writers before thread 0's store, and thread 0
// waits for the store's reads right after issuing it, but no barrier follows
// that wait: the other threads run into the next round's writes at once.
// Fixed: a barrier after the election that holds thread 0's wait.
__device__ __forceinline__ void bulk_store_row(float* dst, const float* src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem(src)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__global__ void __launch_bounds__(256) barrier_before_store_only(const float* in, float* out, int rounds) {
  __shared__ alignas(128) float buf[256];
  for (int r = 0; r < rounds; ++r) {
    buf[threadIdx.x] = in[r * 256 + threadIdx.x] * 2.0f;  // expect: bulk-store-reuse
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) bulk_store_row(out + r * 256, buf, 1024);
  }
}
__global__ void __launch_bounds__(256) barrier_before_and_after_store(const float* in, float* out, int rounds) {
  __shared__ alignas(128) float buf[256];
  for (int r = 0; r < rounds; ++r) {
    buf[threadIdx.x] = in[r * 256 + threadIdx.x] * 2.0f;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) bulk_store_row(out + r * 256, buf, 1024);
    __syncthreads();
  }
}

// 3. Each of 8 threads writes its own 64-float row and stores it (every
// writer is its own issuer, and waits before writing again): silent.
__global__ void each_thread_stores_its_row(const float* in, float* out, int rounds) {
  __shared__ alignas(128) float rows[8][64];
  if (threadIdx.x >= 8) return;
  for (int r = 0; r < rounds; ++r) {
    for (int j = 0; j < 64; ++j) rows[threadIdx.x][j] = in[(r * 8 + threadIdx.x) * 64 + j];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    bulk_store_row(out + (r * 8 + threadIdx.x) * 64, rows[threadIdx.x], 256);
  }
}
