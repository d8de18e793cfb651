// Baseline proxy-raw on one path only, FlashKDA SM90 forward:
// https://github.com/MoonshotAI/FlashKDA/issues/24 (report),
// https://github.com/MoonshotAI/FlashKDA/pull/25 (fix, merged).
// All threads zero a state tile in shared memory with generic stores; each
// trip of the main loop updates the tile and ends with a proxy fence by every
// thread; after the loop thread 0 writes the tile out with a TMA store.
// "When a sequence is empty (t_tiles == 0, reachable with empty sequences in a
// varlen batch), the main loop never executes, so the per-iteration fence
// never runs -- the TMA state store can read stale smem". The fix adds
// fence_view_async_shared() (fence.proxy.async.shared::cta) by every thread
// after the zero-init, before the __syncthreads(). Our kernel: the loop trip
// count comes from a varlen offset table, the store is a bulk copy.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void fence_view_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

template <bool kFenceAfterInit>
__device__ __forceinline__ void recurrent_state(const int* cu_seqlens, const float* k, float* final_state) {
  __shared__ alignas(128) float state[256];
  const int seq = blockIdx.x;
  const int t_tiles = (cu_seqlens[seq + 1] - cu_seqlens[seq] + 63) / 64;
  state[threadIdx.x] = 0.f;  // zero-init (HasStateIn = false)
  if (kFenceAfterInit) fence_view_async_shared();
  __syncthreads();
  for (int t = 0; t < t_tiles; ++t) {
    state[threadIdx.x] = state[threadIdx.x] * 0.5f + k[(cu_seqlens[seq] + t * 64) * 256 + threadIdx.x];
    fence_view_async_shared();  // the per-iteration fence
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    float* dst = final_state + seq * 256;
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" ::"l"(dst), "r"(smem(state)) : "memory");  // expect: proxy-raw
    asm volatile("cp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

__global__ void state_store_empty_sequence_unfenced(const int* cu_seqlens, const float* k, float* final_state) {
  recurrent_state<false>(cu_seqlens, k, final_state);
}
__global__ void state_store_fenced_after_init(const int* cu_seqlens, const float* k, float* final_state) {
  recurrent_state<true>(cu_seqlens, k, final_state);
}
