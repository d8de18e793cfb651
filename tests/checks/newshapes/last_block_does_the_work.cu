// Issue 30, shape 1: the last block does the work. Each block writes a
// partial result and counts itself done with a relaxed read-modify-write; the
// block whose returned count says it is last reads every partial. There is no
// spin loop: the RMW's returned value is the observation. The writers need a
// release before their count (a fence, or a release RMW), the last block an
// acquire after it (a fence, or an acquire RMW).
// Shapes: atomicAdd with __threadfence() on either side; cuda::atomic_ref
// fetch_add with memory orders; a persistent stream-K style loop over tiles
// with a per-tile counter and a noinline helper; atomicInc.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>

// 1. Release missing: the writers do not fence before counting.
__global__ void writers_count_without_release(const float* in, float* partial, unsigned* done, float* out) {
  __shared__ bool last;
  partial[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 3.0f;
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(done, 1u) == gridDim.x - 1;  // expect: release-missing
  __syncthreads();
  if (last) {
    __threadfence();
    float s = 0.f;
    for (unsigned b = 0; b < gridDim.x; ++b) s += partial[b * blockDim.x + threadIdx.x];
    out[threadIdx.x] = s;
  }
}

// 2. Acquire missing: the last block reads right after its count.
__global__ void last_block_without_acquire(const float* in, float* partial, unsigned* done, float* out) {
  __shared__ bool last;
  partial[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 3.0f;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(done, 1u) == gridDim.x - 1;  // expect: acquire-missing
  __syncthreads();
  if (last) {
    float s = 0.f;
    for (unsigned b = 0; b < gridDim.x; ++b) s += partial[b * blockDim.x + threadIdx.x];
    out[threadIdx.x] = s;
  }
}

// 3. Fixed with fences: every writer fences before the barrier, the last
// block fences before reading (the threadFenceReduction form).
__global__ void fences_on_both_sides(const float* in, float* partial, unsigned* done, float* out) {
  __shared__ bool last;
  partial[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * 3.0f;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (last) {
    __threadfence();
    float s = 0.f;
    for (unsigned b = 0; b < gridDim.x; ++b) s += partial[b * blockDim.x + threadIdx.x];
    out[threadIdx.x] = s;
  }
}

// 4. libcu++: a relaxed fetch_add is broken; an acq_rel fetch_add by thread 0
// after the barrier that gathers the writes releases them (cumulativity) and
// acquires the others' partials for the block behind the next barrier.
template <cuda::memory_order kOrder>
__device__ __forceinline__ void ticketed_sum(const float* in, float* partial, unsigned* done, float* out) {
  __shared__ bool last;
  partial[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] + 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> d(*done);
    last = d.fetch_add(1u, kOrder) == gridDim.x - 1;  // expect: release-missing, acquire-missing
  }
  __syncthreads();
  if (last) {
    float s = 0.f;
    for (unsigned b = 0; b < gridDim.x; ++b) s += partial[b * blockDim.x + threadIdx.x];
    out[threadIdx.x] = s;
  }
}
__global__ void atomic_ref_relaxed_ticket(const float* in, float* partial, unsigned* done, float* out) {
  ticketed_sum<cuda::memory_order_relaxed>(in, partial, done, out);
}
__global__ void atomic_ref_acq_rel_ticket(const float* in, float* partial, unsigned* done, float* out) {
  ticketed_sum<cuda::memory_order_acq_rel>(in, partial, done, out);
}

// 5. Stream-K style: a persistent loop over tiles; each tile is split over
// `splits` blocks; the block that brings a tile's counter to `splits` fixes
// the tile up from the workspace. The count is taken in a noinline helper.
__device__ __noinline__ unsigned arrive_on_tile(unsigned* counters, unsigned tile) {
  return atomicInc(&counters[tile], 0xffffffffu);
}
template <bool kFences>
__device__ __forceinline__ void stream_k(const float* a, float* workspace, unsigned* counters, float* c, unsigned tiles,
                                         unsigned splits) {
  __shared__ unsigned ticket;
  for (unsigned unit = blockIdx.x; unit < tiles * splits; unit += gridDim.x) {
    const unsigned tile = unit / splits, split = unit % splits;
    workspace[(tile * splits + split) * blockDim.x + threadIdx.x] = a[unit * blockDim.x + threadIdx.x];
    if (kFences) __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) ticket = arrive_on_tile(counters, tile);  // expect: release-missing, acquire-missing
    __syncthreads();
    if (ticket == splits - 1) {
      if (kFences) __threadfence();
      float s = 0.f;
      for (unsigned k = 0; k < splits; ++k) s += workspace[(tile * splits + k) * blockDim.x + threadIdx.x];
      c[tile * blockDim.x + threadIdx.x] = s;
    }
    __syncthreads();
  }
}
__global__ void stream_k_fixup_unfenced(const float* a, float* workspace, unsigned* counters, float* c, unsigned tiles,
                                        unsigned splits) {
  stream_k<false>(a, workspace, counters, c, tiles, splits);
}
__global__ void stream_k_fixup_fenced(const float* a, float* workspace, unsigned* counters, float* c, unsigned tiles,
                                      unsigned splits) {
  stream_k<true>(a, workspace, counters, c, tiles, splits);
}
