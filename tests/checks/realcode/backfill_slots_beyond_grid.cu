// Found in the real-code corpus (docs/real-code.md, "Corpus 6", fixed in session 8):
// FlashInfer's TensorRT-LLM two-shot all-reduce (flashinfer_allreduce_fusion,
// allreduce_fusion_kernel_twoshot_sync, Barrier::sync). Each block raises the flag of the
// cross-rank barrier in the slots of the blocks NOT in this launch, slot blockIdx.x + k *
// gridDim.x for k >= 1, with st.relaxed.sys (so that a later launch with a larger grid finds
// them up to date), then in its own slot with st.release.sys, and waits on its own slot with
// ld.acquire.sys. No block of this launch polls a slot at or beyond gridDim.x, so the relaxed
// stores are no signal of this launch. The model tells the slots apart with three facts:
//  - Values: the latch test `s < kSlots` bounds the counter (its exit never reads s again), and
//    the counter starts at blockIdx.x + gridDim.x and only grows, so it is at least gridDim.x
//    (ValueAnalysis::atLeastGridSize), more than any block's blockIdx.x;
//  - Memory: `rank` indexes the pointer table (`workspace[rank]`), so it is taken as a valid,
//    non-negative index: word 8 * s + rank lies beyond word 8 * blockIdx.x' + t', t' < 8
//    (MemoryAnalysis::offsetsApart);
//  - Protocol: the two flag pointers are entries of one table (workspace[kRanks + t]): on another
//    GPU they may be one buffer, so the words are compared by their offsets.
// Broken twins: the own slot raised with a relaxed store; a backfill that starts at the block's
// own slot (blockIdx.x, not one grid ahead), which raises the polled word with a relaxed store;
// a backfill shifted one word down, whose first store reaches the last word of a polled slot.
// RUN: %fenceline check --verify --checks=-*,release-missing %s
#include <cstdint>

constexpr int kRanks = 8;
constexpr int kSlots = 64;

__device__ __forceinline__ void st_relaxed(int* p, int v) {
  asm volatile("st.global.relaxed.sys.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_release(int* p, int v) {
  asm volatile("st.global.release.sys.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ int ld_acquire(const int* p) {
  int v;
  asm volatile("ld.global.acquire.sys.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// workspace[r]: rank r's data buffer; workspace[kRanks + r]: rank r's barrier slots;
// workspace[2 * kRanks]: this rank's flag.
enum class Variant { kReleaseOwnSlot, kRelaxedOwnSlot, kBackfillFromOwnSlot, kBackfillShifted };

template <Variant kVariant>
__device__ void two_shot(void** workspace, const float* in, float* out, int rank, int n) {
  const int flag_value = *reinterpret_cast<const int*>(workspace[2 * kRanks]);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  reinterpret_cast<float*>(workspace[rank])[i] = in[i];
  __syncthreads();
  const int next = flag_value == 2 ? 0 : flag_value + 1;
  if (threadIdx.x < kRanks) {
    int* target = reinterpret_cast<int*>(workspace[kRanks + threadIdx.x]) + rank;
    int* current = reinterpret_cast<int*>(workspace[kRanks + rank]) + blockIdx.x * kRanks + threadIdx.x;
    const int first = kVariant == Variant::kBackfillFromOwnSlot ? blockIdx.x : blockIdx.x + gridDim.x;
    const int shift = kVariant == Variant::kBackfillShifted ? -1 : 0;
    for (int s = first; s < kSlots; s += gridDim.x) st_relaxed(target + s * kRanks + shift, next);
    if (kVariant == Variant::kRelaxedOwnSlot) st_relaxed(target + blockIdx.x * kRanks, next);
    else st_release(target + blockIdx.x * kRanks, next);
    while (ld_acquire(current) == flag_value) {
    }
  }
  __syncthreads();
  float sum = 0.f;
  for (int r = 0; r < kRanks; ++r) sum += reinterpret_cast<const float*>(workspace[r])[i];
  out[i] = sum;
}

__global__ void two_shot_release_own_slot(void** workspace, const float* in, float* out, int rank, int n) {
  two_shot<Variant::kReleaseOwnSlot>(workspace, in, out, rank, n);
}

__global__ void two_shot_relaxed_own_slot(void** workspace, const float* in, float* out, int rank, int n) {
  two_shot<Variant::kRelaxedOwnSlot>(workspace, in, out, rank, n);  // expect: release-missing
}

__global__ void two_shot_backfill_from_own_slot(void** workspace, const float* in, float* out, int rank, int n) {
  two_shot<Variant::kBackfillFromOwnSlot>(workspace, in, out, rank, n);  // expect: release-missing
}

__global__ void two_shot_backfill_shifted(void** workspace, const float* in, float* out, int rank, int n) {
  two_shot<Variant::kBackfillShifted>(workspace, in, out, rank, n);  // expect: release-missing
}
