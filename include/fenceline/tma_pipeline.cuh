// A ring of shared-memory stages filled by TMA (bulk or tensor copies) and drained by
// consumer warps that read with ordinary loads. Each stage has a "full" mbarrier (the
// producer's arrive.expect_tx plus the copy's bytes) and an "empty" mbarrier (one elected
// arrival per consumer warp). The hazard it rules out is proxy-war: a consumer's generic
// read of a stage racing the producer's async-proxy refill of the same stage. Both
// placements of fence.proxy.async that the PTX ISA accepts are offered (RefillFence), and
// neither can be left out: the fence is part of release/acquire, not of the caller's code.
//
// Use: one thread (the producer) loops { producer_acquire; producer_commit_* ; advance },
// every thread of each consumer warp loops { consumer_wait; read; consumer_release; advance }.
// Blocks are 1-D (the elected lane is threadIdx.x % 32 == 0).
#pragma once

#include <cstdint>

#include "atomic.cuh"
#include "bulk_copy.cuh"
#include "mbarrier.cuh"

namespace fenceline {

// Where the consumers' generic reads are ordered before the producer's async refill.
enum class RefillFence {
  // Every consumer thread runs fence.proxy.async.shared::cta after its last read of the
  // stage, then __syncwarp, then lane 0 arrives on "empty" with .release.cta.
  consumers,
  // Consumers __syncwarp and lane 0 arrives with .release.cta; the producer runs one
  // fence.proxy.async.shared::cta after its acquire-wait on "empty", before the refill.
  // One fence per stage instead of one per consumer thread.
  producer,
};

template <int Stages>
struct StageBarriers {
  uint64_t full[Stages];
  uint64_t empty[Stages];
};

// Which stage, and which phase parity of its barriers, a role is at.
template <int Stages>
struct StageCursor {
  uint32_t stage = 0;
  uint32_t phase = 0;
  __device__ void advance() {
    if (++stage == Stages) {
      stage = 0;
      phase ^= 1u;
    }
  }
};

template <int Stages, RefillFence Fence>
struct TmaPipeline {
  StageBarriers<Stages>* barriers;

  // Called by every thread of the block. Thread 0 initializes the mbarriers, then makes the
  // initialization visible to the block and to the copy engine (fence.mbarrier_init.release
  // .cluster, fence.proxy.async.shared::cta) before the __syncthreads that publishes it.
  __device__ static TmaPipeline init(StageBarriers<Stages>& shared_barriers, uint32_t consumer_warps) {
    if (threadIdx.x == 0) {
      for (int s = 0; s < Stages; ++s) {
        mbarrier_init(&shared_barriers.full[s], 1);
        mbarrier_init(&shared_barriers.empty[s], consumer_warps);
      }
      fence_mbarrier_init();
      fence_proxy_async_shared();
    }
    __syncthreads();
    return TmaPipeline{&shared_barriers};
  }

  // Producer: waits (acquire.cta) until every consumer warp released the stage's previous
  // contents; the first round passes at once. Contract: after it, the consumers' reads of
  // the stage are ordered before this thread's later copies into it, across proxies (by the
  // consumers' fences, or by the fence this function runs under RefillFence::producer).
  __device__ void producer_acquire(StageCursor<Stages> cursor) const {
    mbarrier_wait_parity(&barriers->empty[cursor.stage], cursor.phase ^ 1u);
    if constexpr (Fence == RefillFence::producer) fence_proxy_async_shared();
  }

  // producer_acquire() with a deadline on %globaltimer (global_timer_ns()), for code that
  // must not hang: true (and the contract of producer_acquire, its fence included) when the
  // stage was released before deadline_ns; false on timeout, when the stage must not be
  // refilled.
  __device__ bool producer_acquire_until(StageCursor<Stages> cursor, uint64_t deadline_ns) const {
    while (!mbarrier_try_wait_parity(&barriers->empty[cursor.stage], cursor.phase ^ 1u))
      if (global_timer_ns() > deadline_ns) return false;
    if constexpr (Fence == RefillFence::producer) fence_proxy_async_shared();
    return true;
  }

  // Producer: announces `bytes` on the stage's full barrier and copies them into it with a
  // bulk copy. Consumers that complete consumer_wait see the copied bytes.
  __device__ void producer_commit_bulk(StageCursor<Stages> cursor, void* shared_stage, const void* global_source,
                                       uint32_t bytes) const {
    mbarrier_arrive_expect_tx(&barriers->full[cursor.stage], bytes);
    bulk_load(shared_stage, global_source, bytes, &barriers->full[cursor.stage]);
  }

  // Producer: as producer_commit_bulk, with a 2-D tensor copy of a box of `bytes` bytes.
  __device__ void producer_commit_tensor_2d(StageCursor<Stages> cursor, void* shared_stage, const CUtensorMap* map,
                                            int x, int y, uint32_t bytes) const {
    mbarrier_arrive_expect_tx(&barriers->full[cursor.stage], bytes);
    tensor_load_2d(shared_stage, map, x, y, &barriers->full[cursor.stage]);
  }

  // Consumer (every thread): waits (acquire.cta) until the stage is full. The copy's
  // completion orders its async writes before this thread's generic reads: no fence needed.
  __device__ void consumer_wait(StageCursor<Stages> cursor) const {
    mbarrier_wait_parity(&barriers->full[cursor.stage], cursor.phase);
  }

  // consumer_wait() with a deadline: true when the stage is full (the same acquire), false
  // when deadline_ns passed first (the stage must not be read).
  __device__ bool consumer_wait_until(StageCursor<Stages> cursor, uint64_t deadline_ns) const {
    while (!mbarrier_try_wait_parity(&barriers->full[cursor.stage], cursor.phase))
      if (global_timer_ns() > deadline_ns) return false;
    return true;
  }

  // Consumer (every thread of the warp, converged): hands the stage back to the producer.
  // Contract: every lane's reads of the stage happen before the producer's refill; the
  // lanes are gathered by __syncwarp, lane 0 releases them at .cta on "empty", and the
  // cross-proxy step is the fence chosen by RefillFence.
  __device__ void consumer_release(StageCursor<Stages> cursor) const {
    if constexpr (Fence == RefillFence::consumers) fence_proxy_async_shared();
    __syncwarp();
    if ((threadIdx.x & 31u) == 0) mbarrier_arrive(&barriers->empty[cursor.stage]);
  }
};

}  // namespace fenceline
