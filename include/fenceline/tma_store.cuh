// The epilogue hand-off from generic writes to a TMA (bulk or tensor) store: threads write
// a staging buffer in shared memory with ordinary stores, then one thread copies it to
// global memory through the async proxy. The hazard is proxy-raw: the copy engine reading
// the buffer before the generic writes are visible to the async proxy. The fence is in
// every writing thread, inside store_publish(), so no caller can place it only in the
// elected thread.
//
// Use: all threads write; store_publish(); the elected thread store_bulk()/store_tensor_2d();
// before the buffer is written again, all threads store_reclaim(elected).
#pragma once

#include <cstdint>

#include "atomic.cuh"
#include "bulk_copy.cuh"

namespace fenceline {

// Every thread of the block, after its last write to the staging buffer. Contract: each
// thread's generic writes are ordered before later async-proxy reads (its own
// fence.proxy.async.shared::cta), and __syncthreads places them before the elected
// thread's store.
__device__ __forceinline__ void store_publish() {
  fence_proxy_async_shared();
  __syncthreads();
}

// The elected thread, after store_publish(): copies `bytes` of the staging buffer to global
// memory as one bulk group.
__device__ __forceinline__ void store_bulk(void* global_destination, const void* shared_staging, uint32_t bytes) {
  bulk_store(global_destination, shared_staging, bytes);
  bulk_commit_group();
}

// The elected thread, after store_publish(): copies the staging buffer into the 2-D box at
// (x, y) of the tensor described by `map`, as one bulk group.
__device__ __forceinline__ void store_tensor_2d(const CUtensorMap* map, int x, int y, const void* shared_staging) {
  tensor_store_2d(map, x, y, shared_staging);
  bulk_commit_group();
}

// Every thread of the block, before the staging buffer is written again: the thread that
// issued the stores waits until they have read the buffer, and __syncthreads holds the
// others until then. Call with issuer = true in that thread only.
__device__ __forceinline__ void store_reclaim(bool issuer) {
  if (issuer) bulk_wait_group_read<0>();
  __syncthreads();
}

// The issuing thread, before the kernel (or anything that reads the destination) ends:
// waits until the stores' global writes are complete.
__device__ __forceinline__ void store_drain() { bulk_wait_group<0>(); }

}  // namespace fenceline
