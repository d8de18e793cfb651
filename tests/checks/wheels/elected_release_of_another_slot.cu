// Issue 34, cuEquivariance's cuDNN attention kernels (elected-arrive, 29 at
// 3f34486): a warp-specialized loop where the producer warps write a tile and
// hand it over properly (every writing thread arrives on the tile's barrier,
// count = writers), and then one lane of each warp gives the scheduler its
// turn back (cuDNN: the response slot of the cluster-launch-control
// scheduler) with an elected arrive on another barrier. The tile's
// reader waits on the tile's barrier before it reads it, on every path from
// its wait for the slot: the tile is released by its own writers, and the
// elected arrive hands over no data of theirs. No finding.
// Twins, each still reported at the elected arrive: the reader reads the tile
// right after its wait for the slot, with no wait on the tile's barrier in
// between (the elected arrive is then the only hand-off); and the tile's
// barrier is arrived on by lane 0 of each warp alone (then both elected
// arrives release the other lanes' writes).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void init_barrier(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)), "r"(parity)
      : "memory");
}

enum class Form { Fixed, ReadAfterSlotWait, TileArriveElected };

constexpr int kProducers = 128;  // four producer warps; warp 4 reads the tiles and schedules

template <Form kForm>
__device__ __forceinline__ void pipeline(const float* __restrict__ in, float* __restrict__ out, int items, int trips) {
  __shared__ float tile[kProducers];
  __shared__ alignas(8) uint64_t tile_full, tile_empty, slot_full, slot_empty;
  const unsigned lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    init_barrier(&tile_full, kForm == Form::TileArriveElected ? kProducers / 32 : kProducers);
    init_barrier(&tile_empty, 32);
    init_barrier(&slot_full, 1);
    init_barrier(&slot_empty, kProducers / 32);
  }
  __syncthreads();
  if (threadIdx.x < kProducers) {
    for (int trip = 0; trip < trips; ++trip) {
      if (trip > 0) wait_parity(&slot_full, (trip - 1) & 1);
      const int item = (blockIdx.x + trip * gridDim.x) % items;  // the tile the scheduler's turn names
      if (trip > 0) wait_parity(&tile_empty, (trip - 1) & 1);
      tile[threadIdx.x] = in[item * kProducers + threadIdx.x] * 2.0f;
      if (kForm != Form::TileArriveElected || lane == 0) arrive(&tile_full);
      if (lane == 0) arrive(&slot_empty);  // gives the scheduler its turn back
    }
  } else if (threadIdx.x < kProducers + 32) {
    for (int trip = 0; trip < trips; ++trip) {
      float sum = 0.0f;
      if (kForm != Form::ReadAfterSlotWait) {
        wait_parity(&tile_full, trip & 1);
        for (int k = 0; k < 4; ++k) sum += tile[lane * 4 + k];
        arrive(&tile_empty);
      }
      wait_parity(&slot_empty, trip & 1);
      if (kForm == Form::ReadAfterSlotWait) {
        for (int k = 0; k < 4; ++k) sum += tile[lane * 4 + k];
        arrive(&tile_empty);
      }
      out[(trip * gridDim.x + blockIdx.x) * 32 + lane] = sum;
      if (lane == 0) arrive(&slot_full);
    }
  }
}

__global__ void tile_released_by_its_writers(const float* __restrict__ in, float* __restrict__ out, int items, int trips) {
  pipeline<Form::Fixed>(in, out, items, trips);
}
__global__ void tile_read_after_slot_wait(const float* __restrict__ in, float* __restrict__ out, int items, int trips) {
  pipeline<Form::ReadAfterSlotWait>(in, out, items, trips);  // expect: elected-arrive
}
__global__ void tile_arrive_elected(const float* __restrict__ in, float* __restrict__ out, int items, int trips) {
  pipeline<Form::TileArriveElected>(in, out, items, trips);  // expect: elected-arrive, elected-arrive
}
