// Open false positive (docs/real-code.md, "WS state bytes after the ring"): shape found in every
// warp-specialized Triton 3.9 kernel of the corpus (tt_*_ws_sm90/sm100). One dynamic shared
// buffer holds, in this order, a ring of kStages TMA stages at `base + s * kStageBytes`, the
// ring's mbarriers, and one "partition" byte per warp that the default warp writes and every
// warp reads (`ld.shared.b8 [base + kStateOffset + warp]`, the warp index from
// `shfl.sync.idx` of `tid.x >> 5`) to pick its role. The stage index wraps with
// `s = s + 1 == kStages ? 0 : s + 1` (add, setp, selp). The partition bytes lie after the
// ring, [base, base + kStages * kStageBytes), so the TMA refills never overwrite them and no
// proxy fence is needed. The checker today cannot bound `s` (nor the warp index) and reports
// the byte read as handed to the refill. The twin below reads a byte inside stage 0 and is a
// real proxy-war.
// XFAIL: *
// RUN: %fenceline check --arch sm_90a --verify %s
#include "../proxy/Inputs/async_copy.cuh"

using namespace proxy_test;

constexpr int kStages = 3;
constexpr int kStageBytes = 8192;
constexpr int kRingBytes = kStages * kStageBytes;
constexpr int kBarrierOffset = kRingBytes;                         // full[3], then empty[3]
constexpr int kStateOffset = kBarrierOffset + 2 * kStages * 8 + 4;  // one byte per warp

enum Role : uint8_t { kProducer = 0, kConsumer = 1 };

__device__ __forceinline__ int warp_index() { return __shfl_sync(0xffffffffu, threadIdx.x / 32, 0); }

// Both kernels: warp 0 fills the ring from `src`, warp 1 stores every stage to `dst` with a
// bulk store (an async-proxy read: no generic access of the stages at all), then frees it.
template <int kRoleOffset>
__device__ void pipeline(const uint8_t* src, uint8_t* dst, int tiles) {
  extern __shared__ __align__(1024) uint8_t buf[];
  uint64_t* full = reinterpret_cast<uint64_t*>(buf + kBarrierOffset);
  uint64_t* empty = full + kStages;
  uint8_t* roles = buf + kRoleOffset;
  const int warp = warp_index();
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 1);
    }
    mbar_init_fence();
    roles[0] = kProducer;
    roles[1] = kConsumer;
  }
  __syncthreads();
  const uint8_t role = roles[warp];  // generic read: outside the ring in the clean kernel
  int s = 0;
  uint32_t phase = 0;
  if (role == kProducer) {
    for (int t = 0; t < tiles; ++t) {
      mbar_wait(&empty[s], phase ^ 1);
      if (elect_one()) {
        mbar_arrive_expect_tx(&full[s], kStageBytes);
        bulk_load(buf + s * kStageBytes, src + size_t(t) * kStageBytes, kStageBytes, &full[s]);
      }
      s = s + 1 == kStages ? 0 : s + 1;
      phase ^= s == 0;
    }
  } else if (role == kConsumer) {
    for (int t = 0; t < tiles; ++t) {
      mbar_wait(&full[s], phase);
      if (elect_one()) {
        bulk_store(dst + size_t(t) * kStageBytes, buf + s * kStageBytes, kStageBytes);
        bulk_commit();
        bulk_wait_read0();
        mbar_arrive(&empty[s]);
      }
      s = s + 1 == kStages ? 0 : s + 1;
      phase ^= s == 0;
    }
  }
}

// Clean: the role bytes follow the barriers, after the ring.
__global__ void roles_after_ring(const uint8_t* src, uint8_t* dst, int tiles) {
  pipeline<kStateOffset>(src, dst, tiles);
}

// Broken twin: the role bytes sit in stage 0, which the producer refills by TMA after the
// consumer's arrive; the generic read of them is not fenced.
__global__ void roles_inside_stage0(const uint8_t* src, uint8_t* dst, int tiles) {
  pipeline<16>(src, dst, tiles);  // expect: proxy-war, proxy-raw
}
