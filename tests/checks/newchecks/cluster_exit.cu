// cluster-exit (issue 30, shape 13): a CTA of a cluster exits while its peer still arrives on
// its mbarrier. Kernels of our own in four forms, two-CTA clusters:
// - one hand-off, one answer, straight-line code: CTA 1 writes a value into its shared memory and
//   arrives on CTA 0's "full" barrier; CTA 0 waits, reads the value through the cluster window and
//   answers on CTA 1's "done" barrier; CTA 1 never waits on "done": default tier (each runs once,
//   the cluster has two CTAs);
// - its fixed twin: CTA 1 waits on "done" before it exits;
// - a ring of chunks whose producer waits for the answer to the previous chunk only (the public
//   bug's form with a register-held peer address, a `__noinline__`-free helper struct): strict
//   tier (`answer-count`: the loops' trip counts decide whether the last answer comes);
// - its fixed twin in CUTLASS's form: after the loop the producer waits for the last answer
//   (the "producer tail"), no cluster barrier;
// - silent: a cluster barrier after the loops (the public fix, also in
//   ../publicbugs/sglang_cluster_exit_without_barrier.cu).
// The producer's own remote arrive on "full" is no answer (it follows no wait on the first
// iteration, or in the straight-line form no wait at all) and is never asked.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ uint32_t peer(uint32_t addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void wait_parity(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tWAIT_%=:\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1;\n\t@!p bra WAIT_%=;\n\t}" ::"r"(bar),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void arrive_remote(uint32_t remote_bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote_bar) : "memory");
}
__device__ __forceinline__ float ld_cluster(uint32_t remote) {
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
  return v;
}
__device__ __forceinline__ void init_pair(uint64_t* a, uint64_t* b) {
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(a)));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(b)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();
}

// One hand-off and its answer. kWaitForAnswer: CTA 1 waits on "done" before it exits.
template <bool kWaitForAnswer>
__device__ __forceinline__ void one_hand_off(const float* src, float* out) {
  __shared__ float value;
  __shared__ alignas(8) uint64_t full, done;
  init_pair(&full, &done);
  if (threadIdx.x != 0) return;
  if (cluster_rank() == 1) {
    value = src[blockIdx.x / 2];
    arrive_remote(peer(smem(&full), 0));
    if (kWaitForAnswer) wait_parity(smem(&done), 0);
  } else {
    wait_parity(smem(&full), 0);
    out[blockIdx.x / 2] = ld_cluster(peer(smem(&value), 1));
    arrive_remote(peer(smem(&done), 1));  // expect: cluster-exit
  }
}

__global__ void __cluster_dims__(2, 1, 1) one_hand_off_no_wait(const float* src, float* out) {
  one_hand_off<false>(src, out);
}
__global__ void __cluster_dims__(2, 1, 1) one_hand_off_waits(const float* src, float* out) {
  one_hand_off<true>(src, out);
}

// A ring of chunks. kTail: the producer waits for the answer to its last chunk after the loop
// (CUTLASS's producer tail); kClusterBarrier: every CTA ends with a cluster barrier.
template <bool kTail, bool kClusterBarrier>
__device__ __forceinline__ void chunk_ring(const float* src, float* out, int chunks) {
  __shared__ alignas(16) float buf[32];
  __shared__ alignas(8) uint64_t full, empty;
  init_pair(&full, &empty);
  if (threadIdx.x >= 32) return;
  const uint32_t lane = threadIdx.x;
  const uint32_t to_consumer = peer(smem(&full), 0), to_producer = peer(smem(&empty), 1);
  if (cluster_rank() == 1) {
    for (int i = 0; i < chunks; ++i) {
      if (i > 0) wait_parity(smem(&empty), (i - 1) & 1);
      buf[lane] = src[(blockIdx.x / 2 * chunks + i) * 32 + lane];
      __syncwarp();
      if (lane == 0) arrive_remote(to_consumer);
    }
    if (kTail && chunks > 0) wait_parity(smem(&empty), (chunks - 1) & 1);
  } else {
    float acc = 0.f;
    for (int i = 0; i < chunks; ++i) {
      wait_parity(smem(&full), i & 1);
      acc += ld_cluster(peer(smem(&buf[lane]), 1));
      __syncwarp();
      if (lane == 0) arrive_remote(to_producer);  // expect-strict: cluster-exit
    }
    out[blockIdx.x / 2 * 32 + lane] = acc;
  }
  if (kClusterBarrier) {
    __syncwarp();
    cluster_sync();
  }
}

__global__ void __cluster_dims__(2, 1, 1) ring_without_tail(const float* src, float* out, int chunks) {
  chunk_ring<false, false>(src, out, chunks);
}
__global__ void __cluster_dims__(2, 1, 1) ring_with_producer_tail(const float* src, float* out, int chunks) {
  chunk_ring<true, false>(src, out, chunks);
}
__global__ void __cluster_dims__(2, 1, 1) ring_with_cluster_barrier(const float* src, float* out, int chunks) {
  chunk_ring<false, true>(src, out, chunks);
}
