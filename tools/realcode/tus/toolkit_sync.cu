// Driver (our own): small kernels that drive the CUDA toolkit's own synchronization
// libraries the way their documentation shows: cooperative groups (grid sync, cluster sync
// over distributed shared memory, memcpy_async) and libcu++ (cuda::barrier with memcpy_async,
// the experimental TMA bulk-copy wrappers, atomic_ref publish/wait, a device-scope
// cuda::barrier). The kernels are ours; the synchronization code they expand is NVIDIA's.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/atomic>
#include <cuda/barrier>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;

// Grid-wide reduction: every block publishes a partial sum, the grid synchronizes, block 0 adds.
__global__ void cg_grid_reduce(const float* in, float* partial, float* out, int n) {
  cg::grid_group grid = cg::this_grid();
  __shared__ float sums[kThreads];
  float acc = 0.f;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) acc += in[i];
  sums[threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.f;
    for (int i = 0; i < kThreads; ++i) s += sums[i];
    partial[blockIdx.x] = s;
  }
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float s = 0.f;
    for (unsigned b = 0; b < gridDim.x; ++b) s += partial[b];
    *out = s;
  }
}

// Two CTAs of a cluster exchange halves through distributed shared memory.
__global__ void __cluster_dims__(2, 1, 1) cg_cluster_exchange(const int* in, int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int mine[kThreads];
  mine[threadIdx.x] = in[blockIdx.x * kThreads + threadIdx.x];
  cluster.sync();
  const int* theirs = cluster.map_shared_rank(mine, cluster.block_rank() ^ 1);
  out[blockIdx.x * kThreads + threadIdx.x] = theirs[kThreads - 1 - threadIdx.x];
  cluster.sync();  // keep our shared memory alive until the peer has read it
}

// Block-cooperative asynchronous copies into a double buffer (cp.async under the hood).
__global__ void cg_memcpy_async_double_buffer(const float* in, float* out, int tiles) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ float buf[2][kThreads];
  float acc = 0.f;
  cg::memcpy_async(block, buf[0], in, sizeof(float) * kThreads);
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles)
      cg::memcpy_async(block, buf[(t + 1) & 1], in + (t + 1) * kThreads, sizeof(float) * kThreads);
    if (t + 1 < tiles) cg::wait_prior<1>(block); else cg::wait(block);
    acc += buf[t & 1][(threadIdx.x * 7) % kThreads];
    block.sync();  // everyone is done with buf[t & 1] before it is refilled
  }
  out[blockIdx.x * kThreads + threadIdx.x] = acc;
}

// libcu++ barrier + memcpy_async ring: 16-byte aligned block copies complete on the barrier
// (bulk copies on sm_90), threads read the stage, then the stage is refilled.
__global__ void cuda_barrier_memcpy_ring(const float4* in, float4* out, int tiles) {
  using Barrier = cuda::barrier<cuda::thread_scope_block>;
  __shared__ alignas(128) float4 stage[2][kThreads];
  __shared__ Barrier bar[2];
  cg::thread_block block = cg::this_thread_block();
  if (block.thread_rank() == 0) {
    init(&bar[0], block.size());  // expect-strict: mbarrier-init-fence
    init(&bar[1], block.size());  // expect-strict: mbarrier-init-fence
  }
  block.sync();
  float4 acc = make_float4(0, 0, 0, 0);
  cuda::memcpy_async(block, stage[0], in, cuda::aligned_size_t<16>(sizeof(stage[0])), bar[0]);
  for (int t = 0; t < tiles; ++t) {
    int s = t & 1;
    if (t + 1 < tiles)
      cuda::memcpy_async(block, stage[s ^ 1], in + (t + 1) * kThreads,
                         cuda::aligned_size_t<16>(sizeof(stage[0])), bar[s ^ 1]);
    bar[s].arrive_and_wait();
    float4 v = stage[s][(threadIdx.x * 5) % kThreads];
    acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    // Everyone is done reading stage s before it is refilled, but the refill is a bulk copy
    // (async proxy) and nothing here or in cuda::memcpy_async fences toward it: a true positive
    // (docs/real-code.md).
    block.sync();  // expect: proxy-war
  }
  out[blockIdx.x * kThreads + threadIdx.x] = acc;
}

// The TMA bulk-store recipe of the CUDA programming guide, with the libcu++ wrappers: threads
// fill shared memory, fence toward the async proxy, synchronize, one thread stores the tile.
__global__ void cuda_bulk_store_tile(float* out) {
  namespace cde = cuda::device::experimental;
  __shared__ alignas(128) float tile[kThreads];
  tile[threadIdx.x] = static_cast<float>(threadIdx.x * blockIdx.x);
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_shared_to_global(out + blockIdx.x * kThreads, tile, sizeof(tile));
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

// Publish/consume through cuda::atomic_ref: block 0 writes a payload and releases a flag;
// the other blocks wait for it (atomic_ref::wait polls with backoff) and read the payload.
__global__ void atomic_ref_publish(int* payload, int* flag, int* out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> ready(*flag);
  if (blockIdx.x == 0) {
    payload[threadIdx.x] = threadIdx.x * 3 + 1;
    __syncthreads();
    if (threadIdx.x == 0) ready.store(1, cuda::std::memory_order_release);
    return;
  }
  if (threadIdx.x == 0) ready.wait(0, cuda::std::memory_order_acquire);
  __syncthreads();
  out[blockIdx.x * kThreads + threadIdx.x] = payload[threadIdx.x];
}

// A device-scope cuda::barrier (initialized by the host) separating the rounds of a grid-wide
// stencil: write this round's values, wait for every block, read the neighbours'.
__global__ void cuda_device_barrier_rounds(cuda::barrier<cuda::thread_scope_device>* grid_bar,
                                           float* cells, int rounds) {
  int i = blockIdx.x * kThreads + threadIdx.x;
  int n = gridDim.x * kThreads;
  for (int r = 0; r < rounds; ++r) {
    cells[i] = cells[i] * 0.5f + 1.f;
    __syncthreads();
    if (threadIdx.x == 0) grid_bar->arrive_and_wait();
    __syncthreads();
    float left = cells[(i + n - 1) % n];
    __syncthreads();
    if (threadIdx.x == 0) grid_bar->arrive_and_wait();
    __syncthreads();
    cells[i] += left * 0.25f;
  }
}
