// proxy-war in a kernel written with CUTLASS-style wrappers of our own: a
// ClusterBarrier struct (init / arrive / wait), a PipelineState (index,
// phase), a producer that acquires and a consumer that releases stages.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

struct ClusterBarrier {
  uint64_t word;

  __device__ uint32_t addr() const { return static_cast<uint32_t>(__cvta_generic_to_shared(&word)); }
  __device__ void init(uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(addr()), "r"(count));
  }
  __device__ void arrive() const {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(addr()) : "memory");
  }
  __device__ void arrive_and_expect_tx(uint32_t bytes) const {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(addr()), "r"(bytes) : "memory");
  }
  __device__ void wait(uint32_t phase) const {
    asm volatile(
        "{\n\t.reg .pred P1;\n\tLAB_WAIT:\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
        "@P1 bra DONE;\n\tbra LAB_WAIT;\n\tDONE:\n\t}" ::"r"(addr()),
        "r"(phase)
        : "memory");
  }
};

template <int kStages>
struct PipelineState {
  int index = 0;
  uint32_t phase = 0;
  __device__ void advance() {
    if (++index == kStages) {
      index = 0;
      phase ^= 1;
    }
  }
};

constexpr int kStages = 4;
constexpr int kTileHalfs = 64 * 64;

struct SharedStorage {
  alignas(128) uint16_t tiles[kStages][kTileHalfs];
  ClusterBarrier full[kStages];
  ClusterBarrier empty[kStages];
};

struct Producer {
  SharedStorage& ss;
  const void* tmap;
  __device__ void load(PipelineState<kStages>& st, int k) {
    ss.empty[st.index].wait(st.phase ^ 1);
    ss.full[st.index].arrive_and_expect_tx(sizeof(ss.tiles[0]));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];" ::"r"(static_cast<uint32_t>(__cvta_generic_to_shared(ss.tiles[st.index]))),
        "l"(tmap), "r"(0), "r"(k * 64), "r"(ss.full[st.index].addr())
        : "memory");
  }
};

template <bool kFenced>
struct Consumer {
  SharedStorage& ss;
  __device__ uint32_t consume(PipelineState<kStages>& st, int lane) {
    ss.full[st.index].wait(st.phase);
    uint32_t a0, a1, a2, a3;
    uint32_t row = static_cast<uint32_t>(__cvta_generic_to_shared(ss.tiles[st.index] + (lane % 16) * 64));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(row));
    return a0 + a1 + a2 + a3;
  }
  __device__ void release(PipelineState<kStages>& st, int lane) {
    if (kFenced) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (lane == 0) ss.empty[st.index].arrive();
  }
};

template <bool kFenced>
__device__ __forceinline__ void gemm_like(const void* tmap, uint32_t* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  SharedStorage& ss = *reinterpret_cast<SharedStorage*>(smem_raw);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      ss.full[s].init(1);
      ss.empty[s].init(4);
    }
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  PipelineState<kStages> st;
  if (warp == 0) {
    Producer p{ss, tmap};
    if (lane == 0)
      for (int k = 0; k < iters; ++k, st.advance()) p.load(st, k);
    return;
  }
  Consumer<kFenced> c{ss};
  uint32_t acc = 0;
  for (int k = 0; k < iters; ++k, st.advance()) {
    acc += c.consume(st, lane);
    c.release(st, lane);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void cutlass_style_no_fence(const void* tmap, uint32_t* out, int iters) {
  gemm_like<false>(tmap, out, iters);  // expect: proxy-war
}

__global__ void cutlass_style_fenced(const void* tmap, uint32_t* out, int iters) { gemm_like<true>(tmap, out, iters); }
