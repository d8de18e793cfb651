// False positive found in the real-code corpus (docs/real-code.md, "Corpus 7"), fixed by
// model/GroupBarriers.cpp (ProtocolModel::isPublishedByGroupBarrier): FlashInfer's multi-CTA
// radix top-k (flashinfer_radix_topk, topk.cuh). The CTAs that share one row form a group;
// CTA 0 of the group clears the group's output counter, then every CTA of the group passes a
// software group barrier (arrive: fence.acq_rel.gpu + red.relaxed on an arrival counter by
// thread 0; wait: ld.acquire spin by thread 0 until the counter reaches the group size, then
// bar.sync), and only after it does every CTA add to the output counter. The barrier orders
// the clearing store before the other CTAs' atomics. Clean kernels: the count after the
// barrier, and a row-uniform branch whose two arms each clear and count behind their own
// barrier (the radix top-k's k >= vocab_size branch and its other arm). Broken twins: the
// count before the barrier, an arrive with no release, a spin with no acquire, and a clear
// after the barrier that is the last one before the count.
// RUN: %fenceline check --verify --checks=-*,barrier-init-race %s

enum Arrive { kReleased, kRelaxed };
enum Wait { kAcquire, kRelaxedSpin };

template <Arrive kArrive, Wait kWait>
__device__ __forceinline__ void group_arrive_and_wait(unsigned* arrived, unsigned target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    if (kArrive == kReleased) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(arrived) : "memory");
    unsigned seen;
    do {
      if (kWait == kAcquire)
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(arrived) : "memory");
      else
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(arrived) : "memory");
    } while (seen < target);
  }
  __syncthreads();
}

enum Order { kCountAfterBarrier, kCountBeforeBarrier, kClearAfterBarrier };

template <Order kOrder, Arrive kArrive = kReleased, Wait kWait = kAcquire>
__device__ void select_rows(const float* in, unsigned* state, int* out, int ctas_per_group) {
  const int group = blockIdx.x / ctas_per_group, cta = blockIdx.x % ctas_per_group;
  unsigned* arrived = state + 2 * group;
  unsigned* output_counter = state + 2 * group + 1;
  if (kOrder == kClearAfterBarrier) group_arrive_and_wait<kArrive, kWait>(arrived, ctas_per_group);
  if (cta == 0 && threadIdx.x == 0) *output_counter = 0;
  if (kOrder == kCountBeforeBarrier && in[blockIdx.x * blockDim.x + threadIdx.x] > 0.f) atomicAdd(output_counter, 1u);
  if (kOrder != kClearAfterBarrier) group_arrive_and_wait<kArrive, kWait>(arrived, ctas_per_group);
  if (kOrder != kCountBeforeBarrier && in[blockIdx.x * blockDim.x + threadIdx.x] > 0.f) {
    const unsigned slot = atomicAdd(output_counter, 1u);
    out[group * 1024 + slot] = blockIdx.x * blockDim.x + threadIdx.x;
  }
}

// Clean: every CTA counts after the group barrier that follows the clearing store.
__global__ void count_after_group_barrier(const float* in, unsigned* state, int* out, int ctas_per_group) {
  select_rows<kCountAfterBarrier>(in, state, out, ctas_per_group);
}

// Clean: a branch that every CTA of the group takes alike (it depends on the row only); each
// arm clears the sum and adds to it behind its own barrier. An arm's store and the other arm's
// adds are apart by a barrier on every path too.
__global__ void row_uniform_branch(const float* in, unsigned* state, float* sums, int ctas_per_group, int k,
                                   int vocab) {
  const int group = blockIdx.x / ctas_per_group, cta = blockIdx.x % ctas_per_group;
  unsigned* arrived = state + group;
  const float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int row = group; row < 64; row += gridDim.x / ctas_per_group) {
    if (k >= vocab) {
      if (threadIdx.x == 0 && cta == 0) sums[row] = 0.f;
      group_arrive_and_wait<kReleased, kAcquire>(arrived, ctas_per_group * (row + 1));
      if (threadIdx.x == 0) atomicAdd(&sums[row], v);
    } else {
      if (threadIdx.x == 0 && cta == 0) sums[row] = 1.f;
      group_arrive_and_wait<kReleased, kAcquire>(arrived, ctas_per_group * (row + 1));
      if (threadIdx.x == 0) atomicAdd(&sums[row], 2.f * v);
    }
    group_arrive_and_wait<kReleased, kAcquire>(arrived, ctas_per_group * (row + 2));
  }
}

// Broken: the other CTAs may count before CTA 0 clears the counter.
__global__ void count_before_group_barrier(const float* in, unsigned* state, int* out, int ctas_per_group) {
  select_rows<kCountBeforeBarrier>(in, state, out, ctas_per_group);  // expect: barrier-init-race
}

// Broken: the arrive is relaxed with no fence before it: the clear is not released.
__global__ void arrive_without_release(const float* in, unsigned* state, int* out, int ctas_per_group) {
  select_rows<kCountAfterBarrier, kRelaxed>(in, state, out, ctas_per_group);  // expect: barrier-init-race
}

// Broken: the spin reads the counter relaxed, with no acquire after it.
__global__ void wait_without_acquire(const float* in, unsigned* state, int* out, int ctas_per_group) {
  select_rows<kCountAfterBarrier, kReleased, kRelaxedSpin>(in, state, out, ctas_per_group);  // expect: barrier-init-race
}

// Broken: the clear comes after the barrier, and no barrier separates it from the count.
__global__ void clear_after_group_barrier(const float* in, unsigned* state, int* out, int ctas_per_group) {
  select_rows<kClearAfterBarrier>(in, state, out, ctas_per_group);  // expect: barrier-init-race
}
