// Issue 33, shape E ("placement 3" of the proxy rule, ordering-rules.md):
// the threads that accessed a shared buffer meet at a barrier that gathers
// them (__syncthreads(), or a named barrier of the threads involved), one
// thread (thread 0, or the elected lane of one warp) executes
// fence.proxy.async.shared::cta, and then releases to the threads that issue
// the async-proxy write: a second barrier, or an mbarrier arrive the issuer
// waits on. The fence follows every access in causality order. Twins: no
// fence; the fence before the gathering barrier; an arrive without it.
// Kernels of our own.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ bool elect_one() {
  uint32_t pred = 0;
  asm volatile("{\n .reg .b32 rx;\n .reg .pred px;\n elect.sync rx|px, %1;\n @px mov.s32 %0, 1;\n}\n"
               : "+r"(pred) : "r"(0xffffffffu));
  return pred != 0;
}
__device__ __forceinline__ void fence_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

__device__ __forceinline__ void refill(float* dst, const float* src, uint32_t bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 128;" ::"r"(bar) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 128, [%2];"
               ::"r"(smem(dst)), "l"(src), "r"(bar) : "memory");
}
__device__ __forceinline__ void wait_parity(uint32_t bar, uint32_t parity) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}"
               ::"r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ void named_sync(uint32_t id, uint32_t count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}


// 1. Correct: every thread writes the scratch, __syncthreads() gathers the
// writes, thread 0 fences, a second __syncthreads() releases the warps, whose
// lane 0 each refill a slice of the scratch by TMA.
__global__ void gather_fence_release(const float* in, float* out) {
  __shared__ alignas(128) float scratch[256];
  __shared__ alignas(8) uint64_t bar[8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t b = smem(&bar[warp]);
  if (lane == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  scratch[threadIdx.x] = float(threadIdx.x) * 2.0f;
  __syncthreads();
  if (threadIdx.x == 0) fence_shared();
  __syncthreads();
  if (lane == 0) {
    refill(&scratch[warp * 32], in + warp * 32, b);
    wait_parity(b, 0);
  }
  __syncthreads();
  out[256 + threadIdx.x] = scratch[threadIdx.x];
}

// 2. Broken: no fence.
__global__ void gather_no_fence_release(const float* in, float* out) {
  __shared__ alignas(128) float scratch[256];
  __shared__ alignas(8) uint64_t bar[8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t b = smem(&bar[warp]);
  if (lane == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  scratch[threadIdx.x] = float(threadIdx.x) * 2.0f;
  __syncthreads();  // expect: proxy-war
  __syncthreads();
  if (lane == 0) {
    refill(&scratch[warp * 32], in + warp * 32, b);
    wait_parity(b, 0);
  }
  __syncthreads();
  out[256 + threadIdx.x] = scratch[threadIdx.x];
}

// 3. Broken: thread 0 fences before the barrier that gathers the writes: it
// orders its own write only.
__global__ void fence_before_gather_release(const float* in, float* out) {
  __shared__ alignas(128) float scratch[256];
  __shared__ alignas(8) uint64_t bar[8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t b = smem(&bar[warp]);
  if (lane == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  scratch[threadIdx.x] = float(threadIdx.x) * 2.0f;
  if (threadIdx.x == 0) fence_shared();
  __syncthreads();  // expect: proxy-war
  __syncthreads();
  if (lane == 0) {
    refill(&scratch[warp * 32], in + warp * 32, b);
    wait_parity(b, 0);
  }
  __syncthreads();
  out[256 + threadIdx.x] = scratch[threadIdx.x];
}

// 4. Correct, named barriers: warps 0-3 write the scratch, meet at named
// barrier 1 (128 threads), warp 0's elected lane fences (and stores the
// tile), the warps meet again, and each warp's elected lane refills its
// slice by TMA.
__global__ void named_gather_elected_fence(const float* in, float* out) {
  __shared__ alignas(128) float scratch[128];
  __shared__ alignas(8) uint64_t bar[4];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t b = smem(&bar[warp & 3]);
  if (warp >= 4) return;
  if (lane == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  scratch[threadIdx.x] = float(threadIdx.x) * 2.0f;
  named_sync(1, 128);
  if (warp == 0 && elect_one()) fence_shared();
  named_sync(1, 128);
  if (elect_one()) {
    refill(&scratch[warp * 32], in + warp * 32, b);
    wait_parity(b, 0);
  }
  named_sync(1, 128);
  out[threadIdx.x] = scratch[127 - threadIdx.x];
}

// 5. Broken twin of 4: warp 0's elected lane fences before the first named barrier.
__global__ void named_fence_before_gather(const float* in, float* out) {
  __shared__ alignas(128) float scratch[128];
  __shared__ alignas(8) uint64_t bar[4];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t b = smem(&bar[warp & 3]);
  if (warp >= 4) return;
  if (lane == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
  scratch[threadIdx.x] = float(threadIdx.x) * 2.0f;
  if (warp == 0 && elect_one()) fence_shared();
  named_sync(1, 128);  // expect: proxy-war
  named_sync(1, 128);
  if (elect_one()) {
    refill(&scratch[warp * 32], in + warp * 32, b);
    wait_parity(b, 0);
  }
  named_sync(1, 128);
  out[threadIdx.x] = scratch[127 - threadIdx.x];
}

// 6. Correct, an mbarrier release: consumer warps 1-3 read a TMA-filled
// stage, meet at named barrier 1 (96 threads), warp 1's elected lane fences
// and arrives on the empty barrier; the producer (warp 0) waits and refills.
__global__ void consumers_gather_fence_arrive(const float* in, float* out, int n) {
  __shared__ alignas(128) float stage[96];
  __shared__ alignas(8) uint64_t full, empty;
  const int warp = threadIdx.x / 32;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full)));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&empty)));
  }
  __syncthreads();
  if (warp == 0) {
    if (elect_one())
      for (int it = 0; it < n; ++it) {
        if (it > 0) wait_parity(smem(&empty), (it - 1) & 1);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 384;" ::"r"(smem(&full)) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 384, [%2];"
                     ::"r"(smem(stage)), "l"(in + it * 96), "r"(smem(&full)) : "memory");
      }
    return;
  }
  float acc = 0.f;
  for (int it = 0; it < n; ++it) {
    wait_parity(smem(&full), it & 1);
    acc += stage[threadIdx.x - 32];
    named_sync(1, 96);
    if (warp == 1 && elect_one()) {
      fence_shared();
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&empty)) : "memory");
    }
  }
  out[threadIdx.x] = acc;
}

// 7. Broken twin of 6: warp 1's elected lane arrives without the fence.
__global__ void consumers_gather_arrive_no_fence(const float* in, float* out, int n) {
  __shared__ alignas(128) float stage[96];
  __shared__ alignas(8) uint64_t full, empty;
  const int warp = threadIdx.x / 32;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full)));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&empty)));
  }
  __syncthreads();
  if (warp == 0) {
    if (elect_one())
      for (int it = 0; it < n; ++it) {
        if (it > 0) wait_parity(smem(&empty), (it - 1) & 1);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 384;" ::"r"(smem(&full)) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 384, [%2];"
                     ::"r"(smem(stage)), "l"(in + it * 96), "r"(smem(&full)) : "memory");
      }
    return;
  }
  float acc = 0.f;
  for (int it = 0; it < n; ++it) {
    wait_parity(smem(&full), it & 1);
    acc += stage[threadIdx.x - 32];
    named_sync(1, 96);
    if (warp == 1 && elect_one())
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&empty)) : "memory");  // expect: proxy-war
  }
  out[threadIdx.x] = acc;
}
