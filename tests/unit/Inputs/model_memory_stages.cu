// Bounded stage indices for the memory-analysis unit tests (issue 11, shape 1):
// one dynamic shared buffer holds a 4-stage bulk-copy ring [smem, smem+65536),
// its mbarriers at smem+65536+8*s, and a bookkeeping word at smem+65600. Each
// kernel advances the stage index in one real form, in a rolled loop
// (`#pragma unroll 1`, so the index stays a register): the analysis must bound
// it, so that the copy's range is the ring and the bookkeeping word is not in
// it. Every thread fences its stage reads before the __syncthreads() that
// hands the stage back to thread 0's next copy; thread 0 then writes the
// bookkeeping word after its fence, so that word is the only unfenced generic
// access and a checker reports it only if it may lie in the ring (only
// stage_from_memory, whose index is unbounded). Facts per kernel are listed
// in the comment above it.
#include <cstdint>

constexpr uint32_t kStageBytes = 16384;
constexpr uint32_t kBars = 65536;  // full[4] at +65536, bookkeeping word at +65600
constexpr uint32_t kBook = 65600;

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, uint32_t bytes, void* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_u32(dst)),
      "l"(src), "r"(bytes), "r"(smem_u32(bar))
      : "memory");
}
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void wait_parity(void* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred P1;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
      "@!P1 bra WAIT;\n\t}" ::"r"(smem_u32(bar)),
      "r"(parity)
      : "memory");
}

// s = s + 1 == 4 ? 0 : s + 1, phase ^= (s == 0): s in [0,3], phase in [0,1].
// Copy writes [smem + s*16384, +16384) (size operand constant 16384): within
// [smem, smem+65536). The bookkeeping store writes [smem+65600, +4): NoAlias
// with the copy. The ld.shared of the stage reads [smem + s*16384 + 4*tid, +4).
extern "C" __global__ void stage_wrap(const float* src, float* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  int s = 0;
  uint32_t phase = 0;
  float acc = 0.f;
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    if (threadIdx.x == 0) bulk_copy(smem + s * kStageBytes, src + k * 4096, kStageBytes, smem + kBars + 8 * s);
    wait_parity(smem + kBars + 8 * s, phase);
    acc += reinterpret_cast<float*>(smem + s * kStageBytes)[threadIdx.x];
    fence_proxy_async();  // the stage reads are fenced before the stage is refilled
    if (threadIdx.x == 0) *reinterpret_cast<uint32_t*>(smem + kBook) = k;  // after the fence: must be outside the ring
    __syncthreads();
    s = s + 1 == 4 ? 0 : s + 1;
    phase ^= s == 0;
  }
  out[threadIdx.x] = acc;
}

// s = k % 4 with int k counting up from 0: s in [0,3] only because k >= 0
// (k starts at 0 and only increments; nvcc emits a signed remainder form).
extern "C" __global__ void stage_modulo(const float* src, float* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  float acc = 0.f;
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    const int s = k % 4;
    if (threadIdx.x == 0) bulk_copy(smem + s * kStageBytes, src + k * 4096, kStageBytes, smem + kBars + 8 * s);
    wait_parity(smem + kBars + 8 * s, (k / 4) & 1);
    acc += reinterpret_cast<float*>(smem + s * kStageBytes)[threadIdx.x];
    fence_proxy_async();  // the stage reads are fenced before the stage is refilled
    if (threadIdx.x == 0) *reinterpret_cast<uint32_t*>(smem + kBook) = k;  // after the fence: must be outside the ring
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}

// s = k & 3: s in [0,3] for any k; phase (k >> 2) & 1 in [0,1].
extern "C" __global__ void stage_mask(const float* src, float* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  float acc = 0.f;
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    const int s = k & 3;
    if (threadIdx.x == 0) bulk_copy(smem + s * kStageBytes, src + k * 4096, kStageBytes, smem + kBars + 8 * s);
    wait_parity(smem + kBars + 8 * s, (k >> 2) & 1);
    acc += reinterpret_cast<float*>(smem + s * kStageBytes)[threadIdx.x];
    fence_proxy_async();  // the stage reads are fenced before the stage is refilled
    if (threadIdx.x == 0) *reinterpret_cast<uint32_t*>(smem + kBook) = k;  // after the fence: must be outside the ring
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}

// Triton's form: n = s + 1; s = n > 2 ? 0 : n (setp.gt + selp), 3 stages:
// s in [0,2], the copy range [smem, smem+49152).
extern "C" __global__ void stage_selp(const float* src, float* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  int s = 0;
  float acc = 0.f;
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    if (threadIdx.x == 0) bulk_copy(smem + s * kStageBytes, src + k * 4096, kStageBytes, smem + kBars + 8 * s);
    wait_parity(smem + kBars + 8 * s, (k / 3) & 1);
    acc += reinterpret_cast<float*>(smem + s * kStageBytes)[threadIdx.x];
    fence_proxy_async();  // the stage reads are fenced before the stage is refilled
    if (threadIdx.x == 0) *reinterpret_cast<uint32_t*>(smem + kBook) = k;  // after the fence: must be outside the ring
    __syncthreads();
    const int n = s + 1;
    s = n > 2 ? 0 : n;
  }
  out[threadIdx.x] = acc;
}

// Unsigned remainder by a non-power of two: s = k % 3u in [0,2] for any k.
extern "C" __global__ void stage_unsigned_mod3(const float* src, float* out, unsigned iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  float acc = 0.f;
#pragma unroll 1
  for (unsigned k = 0; k < iters; ++k) {
    const unsigned s = k % 3u;
    if (threadIdx.x == 0) bulk_copy(smem + s * kStageBytes, src + k * 4096, kStageBytes, smem + kBars + 8 * s);
    wait_parity(smem + kBars + 8 * s, (k / 3u) & 1);
    acc += reinterpret_cast<float*>(smem + s * kStageBytes)[threadIdx.x];
    fence_proxy_async();  // the stage reads are fenced before the stage is refilled
    if (threadIdx.x == 0) *reinterpret_cast<uint32_t*>(smem + kBook) = k;  // after the fence: must be outside the ring
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}

// The stage index as a parameter of a noinline function: inside the .func, s
// is unbounded on its own; after inlining into the caller (s = k & 3) it is
// [0,3]. The .func's ld.shared reads [smem + s*16384 + 4*tid, +4).
__device__ __noinline__ float read_stage(const uint8_t* smem, int s) {
  return reinterpret_cast<const float*>(smem + s * kStageBytes)[threadIdx.x];
}
extern "C" __global__ void stage_noinline(const float* src, float* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  float acc = 0.f;
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    const int s = k & 3;
    if (threadIdx.x == 0) bulk_copy(smem + s * kStageBytes, src + k * 4096, kStageBytes, smem + kBars + 8 * s);
    wait_parity(smem + kBars + 8 * s, (k >> 2) & 1);
    acc += read_stage(smem, s);
    fence_proxy_async();  // the stage reads are fenced before the stage is refilled
    if (threadIdx.x == 0) *reinterpret_cast<uint32_t*>(smem + kBook) = k;  // after the fence: must be outside the ring
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}

// Unbounded on purpose: the stage comes from memory (a scheduler's table), so
// the copy may write anywhere from smem on; the bookkeeping store MayAlias it.
extern "C" __global__ void stage_from_memory(const float* src, const int* stage_of, float* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
  float acc = 0.f;
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    const int s = stage_of[k];
    if (threadIdx.x == 0) bulk_copy(smem + s * kStageBytes, src + k * 4096, kStageBytes, smem + kBars);
    wait_parity(smem + kBars, k & 1);
    acc += reinterpret_cast<float*>(smem + s * kStageBytes)[threadIdx.x];
    fence_proxy_async();  // the stage reads are fenced before the stage is refilled
    if (threadIdx.x == 0) *reinterpret_cast<uint32_t*>(smem + kBook) = k;  // after the fence: must be outside the ring
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}
