// libcu++: cuda::barrier with memcpy_async, a two-stage cuda::pipeline, and
// barrier phases with arrive tokens and arrive_and_drop. Builds for sm_80
// and later (cp.async on sm_80, mbarrier-based forms on sm_90).
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>

namespace cg = cooperative_groups;

extern "C" __global__ void corpus_barrier_copy(const float* in, float* out) {
  __shared__ alignas(16) float tile[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(tile)), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x] * 2.0f;
}

extern "C" __global__ void corpus_pipeline(const int* in, int* out, int chunks) {
  constexpr int kStages = 2;
  constexpr int kChunk = 128;
  __shared__ alignas(16) int buffer[kStages][kChunk];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  int acc = 0;
  for (int fetch = 0, use = 0; use < chunks; ++use) {
    for (; fetch < chunks && fetch < use + kStages; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, buffer[fetch % kStages], in + fetch * kChunk, sizeof(int) * kChunk, pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += buffer[use % kStages][threadIdx.x % kChunk];
    pipe.consumer_release();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void corpus_barrier_phases(int* data) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  data[threadIdx.x] += 1;
  auto token = bar.arrive();
  bar.wait(std::move(token));
  data[threadIdx.x] += data[(threadIdx.x + 1) % blockDim.x];
  if (threadIdx.x % 2) {
    bar.arrive_and_drop();
    return;
  }
  bar.arrive_and_wait();
  data[threadIdx.x] *= 2;
}
