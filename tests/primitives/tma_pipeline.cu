// RUN: %fenceline check --verify --arch sm_90a %s
// TmaPipeline with both refill-fence policies and both copy kinds: one producer thread
// fills a 4-stage ring, four consumer warps read every stage with ld.shared and hand it
// back. fenceline check must find nothing (no expectations): the consumers' reads reach
// the next refill through fence.proxy.async in every reader, or in the producer.
#include "../../include/fenceline/tma_pipeline.cuh"

using namespace fenceline;

constexpr int kStages = 4;
constexpr int kStageWords = 1024;

template <RefillFence Fence, bool Tensor>
__device__ void ring(const float* source, const CUtensorMap* map, int tiles, float* out) {
  __shared__ StageBarriers<kStages> barriers;
  __shared__ alignas(128) float stages[kStages][kStageWords];
  auto pipeline = TmaPipeline<kStages, Fence>::init(barriers, 4);
  StageCursor<kStages> cursor;
  if (threadIdx.x / 32 == 4) {
    if (threadIdx.x % 32 != 0) return;
    for (int t = 0; t < tiles; ++t) {
      pipeline.producer_acquire(cursor);
      if constexpr (Tensor)
        pipeline.producer_commit_tensor_2d(cursor, stages[cursor.stage], map, 0, t * 4, kStageWords * 4);
      else
        pipeline.producer_commit_bulk(cursor, stages[cursor.stage], source + t * kStageWords, kStageWords * 4);
      cursor.advance();
    }
    return;
  }
  float sum = 0;
  for (int t = 0; t < tiles; ++t) {
    pipeline.consumer_wait(cursor);
    for (int k = threadIdx.x; k < kStageWords; k += 128) sum += stages[cursor.stage][k];
    pipeline.consumer_release(cursor);
    cursor.advance();
  }
  out[blockIdx.x * 128 + threadIdx.x] = sum;
}

__global__ void __launch_bounds__(160) ring_bulk_consumers_fence(const float* source, int tiles, float* out) {
  ring<RefillFence::consumers, false>(source, nullptr, tiles, out);
}

__global__ void __launch_bounds__(160) ring_bulk_producer_fences(const float* source, int tiles, float* out) {
  ring<RefillFence::producer, false>(source, nullptr, tiles, out);
}

__global__ void __launch_bounds__(160) ring_tensor_consumers_fence(const __grid_constant__ CUtensorMap map, int tiles,
                                                                  float* out) {
  ring<RefillFence::consumers, true>(nullptr, &map, tiles, out);
}

__global__ void __launch_bounds__(160) ring_tensor_producer_fences(const __grid_constant__ CUtensorMap map, int tiles,
                                                                  float* out) {
  ring<RefillFence::producer, true>(nullptr, &map, tiles, out);
}

// The bounded waits (producer_acquire_until, consumer_wait_until), as the lab's GEMM uses
// them: a role that times out stops without touching the stage; nothing to report either.
template <RefillFence Fence>
__device__ void bounded_ring(const float* source, int tiles, float* out, unsigned* timeouts, uint64_t timeout_ns) {
  __shared__ StageBarriers<kStages> barriers;
  __shared__ alignas(128) float stages[kStages][kStageWords];
  auto pipeline = TmaPipeline<kStages, Fence>::init(barriers, 4);
  StageCursor<kStages> cursor;
  const uint64_t deadline = global_timer_ns() + timeout_ns;
  if (threadIdx.x / 32 == 4) {
    if (threadIdx.x % 32 != 0) return;
    for (int t = 0; t < tiles; ++t) {
      if (!pipeline.producer_acquire_until(cursor, deadline)) {
        atomicAdd(timeouts, 1u);
        return;
      }
      pipeline.producer_commit_bulk(cursor, stages[cursor.stage], source + t * kStageWords, kStageWords * 4);
      cursor.advance();
    }
    return;
  }
  float sum = 0;
  for (int t = 0; t < tiles; ++t) {
    if (!pipeline.consumer_wait_until(cursor, deadline)) break;
    for (int k = threadIdx.x; k < kStageWords; k += 128) sum += stages[cursor.stage][k];
    pipeline.consumer_release(cursor);
    cursor.advance();
  }
  out[blockIdx.x * 128 + threadIdx.x] = sum;
}

__global__ void __launch_bounds__(160) bounded_ring_consumers_fence(const float* source, int tiles, float* out,
                                                                    unsigned* timeouts, uint64_t timeout_ns) {
  bounded_ring<RefillFence::consumers>(source, tiles, out, timeouts, timeout_ns);
}

__global__ void __launch_bounds__(160) bounded_ring_producer_fences(const float* source, int tiles, float* out,
                                                                    unsigned* timeouts, uint64_t timeout_ns) {
  bounded_ring<RefillFence::producer>(source, tiles, out, timeouts, timeout_ns);
}
