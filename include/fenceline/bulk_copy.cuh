// Bulk and tensor copies (TMA) between global and shared memory. They access memory
// through the async proxy: shared memory they write or read must be ordered against
// generic accesses with fence.proxy.async (see tma_pipeline.cuh and tma_store.cuh, which
// place those fences). Loads complete on an mbarrier (complete_tx); stores complete in
// bulk groups.
#pragma once

#include <cuda.h>  // CUtensorMap (header only: no driver library needed to compile)

#include <cstdint>

#include "mbarrier.cuh"

namespace fenceline {

// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from global memory into
// this block's shared memory; the transfer completes as transactions on `barrier`.
__device__ __forceinline__ void bulk_load(void* shared_destination, const void* global_source,
                                          uint32_t bytes, uint64_t* barrier) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          shared_address(shared_destination)),
      "l"(global_source), "r"(bytes), "r"(shared_address(barrier))
      : "memory");
}

// Copies the 2-D box at (x, y) of the tensor described by `map` (a __grid_constant__ kernel
// parameter or global memory) into shared memory; completes as transactions on `barrier`.
__device__ __forceinline__ void tensor_load_2d(void* shared_destination, const CUtensorMap* map, int x, int y,
                                               uint64_t* barrier) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
      "[%4];" ::"r"(shared_address(shared_destination)),
      "l"(map), "r"(x), "r"(y), "r"(shared_address(barrier))
      : "memory");
}

// Copies `bytes` from this block's shared memory to global memory in the current bulk group.
__device__ __forceinline__ void bulk_store(void* global_destination, const void* shared_source, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(global_destination),
               "r"(shared_address(shared_source)), "r"(bytes)
               : "memory");
}

// Copies shared memory into the 2-D box at (x, y) of the tensor described by `map`.
__device__ __forceinline__ void tensor_store_2d(const CUtensorMap* map, int x, int y, const void* shared_source) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map),
               "r"(x), "r"(y), "r"(shared_address(shared_source))
               : "memory");
}

// Closes the current bulk group of stores.
__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// Waits until at most `Pending` committed groups still read their shared source: after it,
// the source buffers of the older groups may be overwritten.
template <int Pending = 0>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}

// Waits until at most `Pending` committed groups are incomplete (their writes done).
template <int Pending = 0>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(Pending) : "memory");
}

}  // namespace fenceline
