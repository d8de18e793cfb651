// Issue 11, shape 1: one `extern __shared__` buffer carved into a bulk-copy
// stage ring, the ring's mbarriers, per-stage scale factors, bookkeeping words
// and an epilogue staging tile (the layout Triton and hand-written libraries
// use). The stage index is a bounded runtime value in each of its real forms
// (`s + 1 == N ? 0 : s + 1` with a phase flip, `k % N`, `k & (N - 1)`, a
// CUTLASS-style PipelineState, a `noinline` consumer step, a wrap with a side
// effect that nvcc keeps as a branch; unrolled by the stage count or rolled
// with `#pragma unroll 1`), so the ring
// occupies [smem, smem + N * kStageBytes) and the generic accesses to the
// words after it are other objects: no proxy-war there. Consumers read the
// ring with plain loads; they must fence before releasing a stage, and a
// bookkeeping word written after that fence is fine only outside the ring.
// RUN: %fenceline check --arch sm_90a --verify %s
#include "Inputs/sm90_pipeline.cuh"

using namespace mt;

constexpr int kStages = 4;
constexpr int kStageFloats = 4096;
constexpr uint32_t kStageBytes = kStageFloats * 4;          // 16 KiB per stage
constexpr uint32_t kRingBytes = kStages * kStageBytes;      // [0, 65536)
constexpr uint32_t kFullOffset = kRingBytes;                // 4 mbarriers
constexpr uint32_t kEmptyOffset = kFullOffset + 8 * kStages;  // 4 mbarriers
constexpr uint32_t kScaleOffset = kRingBytes + 128;         // float[kStages][32]
constexpr uint32_t kBookOffset = kScaleOffset + kStages * 32 * 4;  // uint32_t[4]
constexpr uint32_t kStagingOffset = kBookOffset + 128;      // float[128]
constexpr int kConsumers = 128;

enum IndexForm { kWrap, kModulo, kMask, kPipelineState, kNoinlineStep, kWrapRolled, kMaskRolled, kWrapBranchRolled };

// Laps of the ring, counted where the stage index wraps: the side effect
// keeps nvcc's branch (`add s, 1; setp.ne s, 4; @p bra; ...; mov s, 0`).
__device__ unsigned ring_laps;

// The rolled forms keep the stage index a register (`#pragma unroll 1`);
// the others are unrolled by the stage count (constant stage addresses).
template <IndexForm kForm>
constexpr bool isWrap = kForm == kWrap || kForm == kWrapRolled;
template <IndexForm kForm>
constexpr bool isMask = kForm == kMask || kForm == kMaskRolled;
template <IndexForm kForm>
constexpr int kUnroll = kForm == kWrapRolled || kForm == kMaskRolled || kForm == kWrapBranchRolled ? 1 : kStages;
enum Marker { kMarkerInBook, kMarkerInStage };

struct Layout {
  uint8_t* base;
  __device__ float* stage(int s) const { return reinterpret_cast<float*>(base + s * kStageBytes); }
  __device__ uint64_t* full(int s) const { return reinterpret_cast<uint64_t*>(base + kFullOffset) + s; }
  __device__ uint64_t* empty(int s) const { return reinterpret_cast<uint64_t*>(base + kEmptyOffset) + s; }
  __device__ float* scales(int s) const { return reinterpret_cast<float*>(base + kScaleOffset) + 32 * s; }
  __device__ uint32_t* book() const { return reinterpret_cast<uint32_t*>(base + kBookOffset); }
  __device__ float* staging() const { return reinterpret_cast<float*>(base + kStagingOffset); }
};

// One consumer step as a separate (not inlined) function, stage index as a parameter.
__device__ __noinline__ float consume_step(Layout L, int s, int t) {
  return L.stage(s)[t] * L.scales(s)[t % 32] + L.stage(s)[t + kConsumers];
}

template <IndexForm kForm, bool kFence, Marker kMarker>
__device__ __forceinline__ void pipeline(const float* src, const float* scale_src, float* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  Layout L{smem};
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      ClusterBarrier::init(L.full(s), 1);
      ClusterBarrier::init(L.empty(s), kConsumers / 32);
    }
    L.book()[0] = 0;
    fence_barrier_init();
  }
  __syncthreads();

  if (warp == 4) {  // producer warp, one elected lane
    if (elect_one_sync()) {
      int s = 0;
      uint32_t phase = 0;
      PipelineState<kStages> ps;
#pragma unroll kUnroll<kForm>
      for (int k = 0; k < iters; ++k) {
        if constexpr (kForm == kModulo || kForm == kNoinlineStep) {
          s = k % kStages;
          phase = (k / kStages) & 1;
        } else if constexpr (isMask<kForm>) {
          s = k & (kStages - 1);
          phase = (k >> 2) & 1;
        } else if constexpr (kForm == kPipelineState) {
          s = ps.index();
          phase = ps.phase();
        }
        ClusterBarrier::wait(L.empty(s), phase ^ 1);
        for (int j = 0; j < 32; ++j) L.scales(s)[j] = scale_src[k * 32 + j];
        ClusterTransactionBarrier::arrive_and_expect_tx(L.full(s), kStageBytes);
        SM90_BULK_COPY_G2S::copy(src + size_t(k) * kStageFloats, L.full(s), L.stage(s), kStageBytes);
        if constexpr (isWrap<kForm>) {
          s = s + 1 == kStages ? 0 : s + 1;
          phase ^= s == 0;
        } else if constexpr (kForm == kPipelineState) {
          ++ps;
        } else if constexpr (kForm == kWrapBranchRolled) {
          if (++s == kStages) {
            s = 0;
            phase ^= 1;
            ring_laps = k;
          }
        }
      }
    }
    return;
  }

  const int t = threadIdx.x;
  float acc = 0.f;
  int s = 0;
  uint32_t phase = 0;
  PipelineState<kStages> ps;
#pragma unroll kUnroll<kForm>
  for (int k = 0; k < iters; ++k) {
    if constexpr (kForm == kModulo || kForm == kNoinlineStep) {
      s = k % kStages;
      phase = (k / kStages) & 1;
    } else if constexpr (isMask<kForm>) {
      s = k & (kStages - 1);
      phase = (k >> 2) & 1;
    } else if constexpr (kForm == kPipelineState) {
      s = ps.index();
      phase = ps.phase();
    }
    ClusterBarrier::wait(L.full(s), phase);
    if constexpr (kForm == kNoinlineStep)
      acc += consume_step(L, s, t);
    else
      acc += L.stage(s)[t] * L.scales(s)[t % 32] + L.stage(s)[t + kConsumers];
    if (kFence) fence_view_async_shared();
    if (lane == 0) {
      // Bookkeeping after the fence: a progress word (outside the ring) or a
      // per-stage "consumed" marker in the stage's last word (inside it).
      if (kMarker == kMarkerInBook) L.book()[1 + warp % 3] = k;
      else L.stage(s)[kStageFloats - 1 - warp] = 0.f;
      ClusterBarrier::arrive(L.empty(s));
    }
    if constexpr (isWrap<kForm>) {
      s = s + 1 == kStages ? 0 : s + 1;
      phase ^= s == 0;
    } else if constexpr (kForm == kPipelineState) {
      ++ps;
    } else if constexpr (kForm == kWrapBranchRolled) {
      if (++s == kStages) {
        s = 0;
        phase ^= 1;
        if (t == 0) ring_laps = k;
      }
    }
  }
  // Epilogue: stage the block's results, fence, bulk-store them.
  L.staging()[t] = acc;
  fence_view_async_shared();
  asm volatile("bar.sync 1, 128;" ::: "memory");
  if (t == 0) {
    SM90_BULK_COPY_S2G::copy(L.staging(), out + blockIdx.x * kConsumers, kConsumers * 4);
    tma_store_arrive();
    tma_store_wait0();
  }
}

// Clean: every index form, consumers fence, bookkeeping outside the ring.
__global__ void ring_wrap_clean(const float* src, const float* sc, float* out, int iters) {
  pipeline<kWrap, true, kMarkerInBook>(src, sc, out, iters);
}
__global__ void ring_modulo_clean(const float* src, const float* sc, float* out, int iters) {
  pipeline<kModulo, true, kMarkerInBook>(src, sc, out, iters);
}
__global__ void ring_mask_clean(const float* src, const float* sc, float* out, int iters) {
  pipeline<kMask, true, kMarkerInBook>(src, sc, out, iters);
}
__global__ void ring_pipeline_state_clean(const float* src, const float* sc, float* out, int iters) {
  pipeline<kPipelineState, true, kMarkerInBook>(src, sc, out, iters);
}
__global__ void ring_noinline_step_clean(const float* src, const float* sc, float* out, int iters) {
  pipeline<kNoinlineStep, true, kMarkerInBook>(src, sc, out, iters);
}
__global__ void ring_wrap_rolled_clean(const float* src, const float* sc, float* out, int iters) {
  pipeline<kWrapRolled, true, kMarkerInBook>(src, sc, out, iters);
}
__global__ void ring_mask_rolled_clean(const float* src, const float* sc, float* out, int iters) {
  pipeline<kMaskRolled, true, kMarkerInBook>(src, sc, out, iters);
}
__global__ void ring_wrap_branch_clean(const float* src, const float* sc, float* out, int iters) {
  pipeline<kWrapBranchRolled, true, kMarkerInBook>(src, sc, out, iters);
}

// Broken: consumers read the ring and release it unfenced.
__global__ void ring_wrap_unfenced(const float* src, const float* sc, float* out, int iters) {
  pipeline<kWrap, false, kMarkerInBook>(src, sc, out, iters);  // expect: proxy-war
}
__global__ void ring_mask_unfenced(const float* src, const float* sc, float* out, int iters) {
  pipeline<kMask, false, kMarkerInBook>(src, sc, out, iters);  // expect: proxy-war
}
__global__ void ring_wrap_rolled_unfenced(const float* src, const float* sc, float* out, int iters) {
  pipeline<kWrapRolled, false, kMarkerInBook>(src, sc, out, iters);  // expect: proxy-war
}
__global__ void ring_wrap_branch_unfenced(const float* src, const float* sc, float* out, int iters) {
  pipeline<kWrapBranchRolled, false, kMarkerInBook>(src, sc, out, iters);  // expect: proxy-war
}
__global__ void ring_wrap_branch_marker_in_stage(const float* src, const float* sc, float* out, int iters) {
  pipeline<kWrapBranchRolled, true, kMarkerInStage>(src, sc, out, iters);  // expect: proxy-war
}
__global__ void ring_mask_rolled_marker_in_stage(const float* src, const float* sc, float* out, int iters) {
  pipeline<kMaskRolled, true, kMarkerInStage>(src, sc, out, iters);  // expect: proxy-war
}

// Broken: fenced reads, but the marker written after the fence lies inside the stage.
__global__ void ring_wrap_marker_in_stage(const float* src, const float* sc, float* out, int iters) {
  pipeline<kWrap, true, kMarkerInStage>(src, sc, out, iters);  // expect: proxy-war
}
__global__ void ring_modulo_marker_in_stage(const float* src, const float* sc, float* out, int iters) {
  pipeline<kModulo, true, kMarkerInStage>(src, sc, out, iters);  // expect: proxy-war
}
