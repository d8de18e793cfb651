// Shape from cuBLAS 13.10's warp-specialized TMA symv (`symv_tma_ws_kernel`, the 468 findings
// of shape F1 in docs/real-code.md): blocks of 32 x 10 threads whose roles are chosen by
// threadIdx.y, not threadIdx.x. Row y == 0 is the producer (thread x == 0 alone fills a stage and
// arrives on `full`), row 1 the reducer warp, rows 2-9 the compute warps. A persistent loop over
// tiles encloses the role dispatch.
// Safe: each compute thread updates its own accumulator word after the stage is full, writes its
// column partial and arrives on `reduce` itself (count: 8 compute warps + the reducer warp); the
// reducer warp arrives and waits on it (a join) and then reads every row's partial. Neither the
// producer's arrive on `full` nor the reducer warp's arrive on `reduce` is the release of a compute
// thread's write: the CFG paths from those writes to them (falling through into the reducer's row
// test, around the loop's back edge into the producer's) are taken by no thread, since the
// writes' threadIdx.y range (2-9) meets neither the producer's (0) nor the reducer's (1).
// Broken twin: only lane 0 of each compute warp arrives on `reduce` after the warp's writes, with no
// __syncwarp(): that arrive releases the other lanes' partials (same rows, same lanes meet).
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void arrive_lane0(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");  // expect: elected-arrive
}
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(smem(bar)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void init(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}

constexpr int kLanes = 32, kComputeRows = 8;

struct Shared {
  float stage[2][kLanes];
  float acc[kComputeRows][kLanes];
  float partial[2][kComputeRows][kLanes];
  alignas(8) uint64_t full[2], empty[2], reduce[2], reduced[2];
};

__device__ void init_barriers(Shared& s, int reduceCount) {
  if (threadIdx.x == 0 && threadIdx.y == 0)
    for (int k = 0; k < 2; ++k) {
      init(&s.full[k], 1);
      init(&s.empty[k], kComputeRows * kLanes);
      init(&s.reduce[k], reduceCount);
      init(&s.reduced[k], kLanes);
    }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
}

// The producer: thread (0, 0) fills a stage with its own stores and arrives on `full`.
__device__ void produce(Shared& s, const float* in, int t) {
  const int k = t & 1;
  if (t >= 2) wait_parity(&s.empty[k], ((t >> 1) - 1) & 1);
  for (int j = 0; j < kLanes; ++j) s.stage[k][j] = in[t * kLanes + j];
  arrive(&s.full[k]);
}

// The reducer warp: joins the compute threads on `reduce`, sums the partials, frees them.
__device__ void reduce_tile(Shared& s, float* out, int t) {
  const int k = t & 1, lane = threadIdx.x;
  arrive(&s.reduce[k]);
  wait_parity(&s.reduce[k], (t >> 1) & 1);
  float sum = 0.f;
  for (int r = 0; r < kComputeRows; ++r) sum += s.partial[k][r][lane];
  arrive(&s.reduced[k]);
  out[(blockIdx.x * gridDim.y + t) * kLanes + lane] = sum;
}

__global__ void __launch_bounds__(320) symv_rows(const float* in, float* out, int tiles) {
  __shared__ Shared s;
  init_barriers(s, kComputeRows * kLanes + kLanes);
  const int row = threadIdx.y - 2, lane = threadIdx.x;
  for (int t = 0; t < tiles; ++t) {
    const int k = t & 1;
    if (threadIdx.y == 0) {
      if (threadIdx.x == 0) produce(s, in, t);
    } else if (threadIdx.y == 1) {
      reduce_tile(s, out, t);
    } else if (row >= 0 && row < kComputeRows) {
      wait_parity(&s.full[k], (t >> 1) & 1);
      s.acc[row][lane] += s.stage[k][lane] * float(row + 1);
      arrive(&s.empty[k]);
      if (t >= 2) wait_parity(&s.reduced[k], ((t >> 1) - 1) & 1);
      s.partial[k][row][lane] = s.acc[row][lane];
      arrive(&s.reduce[k]);
    }
  }
}

__global__ void __launch_bounds__(320) symv_rows_lane0(const float* in, float* out, int tiles) {
  __shared__ Shared s;
  init_barriers(s, kComputeRows + kLanes);
  const int row = threadIdx.y - 2, lane = threadIdx.x;
  for (int t = 0; t < tiles; ++t) {
    const int k = t & 1;
    if (threadIdx.y == 0) {
      if (threadIdx.x == 0) produce(s, in, t);
    } else if (threadIdx.y == 1) {
      reduce_tile(s, out, t);
    } else if (row >= 0 && row < kComputeRows) {
      wait_parity(&s.full[k], (t >> 1) & 1);
      s.acc[row][lane] += s.stage[k][lane] * float(row + 1);
      arrive(&s.empty[k]);
      if (t >= 2) wait_parity(&s.reduced[k], ((t >> 1) - 1) & 1);
      s.partial[k][row][lane] = s.acc[row][lane];
      if (lane == 0) arrive_lane0(&s.reduce[k]);
    }
  }
}
