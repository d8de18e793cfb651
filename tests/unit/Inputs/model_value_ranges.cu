// Ranges of index values for the value-analysis unit tests (issue 11): the
// forms nvcc emits for remainders, stage wraps, phase flips, declared block
// sizes and shuffled warp ids. Each kernel stores to the static shared array
// `slot` at the index under test (4 bytes per entry), so that a test reads
// the index's range off the store's address: offset = 4 * index (one kernel
// stores bytes: offset = index).
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// x % 3u of an arbitrary unsigned x (a loaded value): nvcc divides by a
// magic multiplier (mul.hi.u32 0xAAAAAAAB, shr 1) and subtracts 3 * q.
// Every unsigned x gives [0, 2]: the range must not depend on knowing x.
extern "C" __global__ void rem_unsigned_loaded(const unsigned* in, int* out) {
  __shared__ int slot[64];
  const unsigned x = in[threadIdx.x];
  slot[x % 3u] = 1;
  __syncthreads();
  out[threadIdx.x] = slot[threadIdx.x & 63];
}

// x % 32 of a signed x of unknown sign: (-32, 32), stored at byte 32 + r of
// `bytes`: offsets [1, 63]. nvcc: shr.s32 31; shr.u32 27; add; and -32; sub.
extern "C" __global__ void rem_signed_loaded(const int* in, int* out) {
  __shared__ uint8_t bytes[64];
  const int x = in[threadIdx.x];
  bytes[32 + x % 32] = 1;
  __syncthreads();
  out[threadIdx.x] = bytes[threadIdx.x & 63];
}

// A signed loop counter k >= 0 (starts at 0, only increments): k % 32 in
// [0, 31], and k % 3 in [0, 2] (signed remainder by a non-power of two).
extern "C" __global__ void rem_signed_counter(int* out, int n) {
  __shared__ int slot[64];
#pragma unroll 1
  for (int k = 0; k < n; ++k) {
    slot[k % 32] = k;
    slot[32 + k % 3] = k;
    __syncthreads();
  }
  out[threadIdx.x] = slot[threadIdx.x & 63];
}

// Triton's `stage = (stage + 1) % 3` carried around a loop: [0, 2].
extern "C" __global__ void stage_plus_one_mod(int* out, int n) {
  __shared__ int slot[64];
  int s = 0;
#pragma unroll 1
  for (int k = 0; k < n; ++k) {
    slot[s] = k;
    __syncthreads();
    s = (s + 1) % 3;
  }
  out[threadIdx.x] = slot[threadIdx.x & 63];
}

// `if (++s == 5) { s = 0; phase ^= 1; }`: s in [0, 4], phase in [0, 1]
// (nvcc: add, setp.eq 5, selp or a guarded move; xor of the phase).
extern "C" __global__ void stage_wrap_phase(int* out, int n) {
  __shared__ int slot[64];
  int s = 0;
  unsigned phase = 0;
#pragma unroll 1
  for (int k = 0; k < n; ++k) {
    slot[s] = k;
    slot[32 + phase] = k;
    __syncthreads();
    if (++s == 5) {
      s = 0;
      phase ^= 1;
    }
  }
  out[threadIdx.x] = slot[threadIdx.x & 63];
}

// A stage index that counts down: s = s == 0 ? 3 : s - 1, in [0, 3].
extern "C" __global__ void stage_count_down(int* out, int n) {
  __shared__ int slot[64];
  int s = 3;
#pragma unroll 1
  for (int k = 0; k < n; ++k) {
    slot[s] = k;
    __syncthreads();
    s = s == 0 ? 3 : s - 1;
  }
  out[threadIdx.x] = slot[threadIdx.x & 63];
}

// __launch_bounds__(64) declares .maxntid 64: %tid.x in [0, 63], so slot[tid]
// stays in [0, 256) bytes. The warp id tid / 32, broadcast by a shuffle from
// lane 0, is in [0, 1]: slot[32 + warp] at offsets [128, 132].
extern "C" __global__ void __launch_bounds__(64) declared_block(int* out) {
  __shared__ int slot[64];
  slot[threadIdx.x] = 1;
  const int warp = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 32), 0);
  __syncthreads();
  slot[32 + warp] = 2;
  __syncthreads();
  out[threadIdx.x] = slot[threadIdx.x];
}

// __launch_bounds__(64) bounds the block's threads, not its width: a 32 x 2
// launch runs it with %ntid.x == 32, so blockDim.x - 1 is in [0, 63], not 63.
// __block_size__((128, 2, 1)) fixes the width: blockDim.x - 1 is 127.
extern "C" __global__ void __launch_bounds__(64) declared_block_width(int* out) {
  __shared__ int slot[64];
  slot[blockDim.x - 1] = 1;
  __syncthreads();
  out[threadIdx.x] = slot[threadIdx.x];
}
extern "C" __global__ void __block_size__((128, 2, 1)) required_block_width(int* out) {
  __shared__ int slot[128];
  slot[blockDim.x - 1] = 1;
  __syncthreads();
  out[threadIdx.x] = slot[threadIdx.x];
}

// Without declared bounds %tid.x is in [0, 1023]; the warp id in [0, 31].
extern "C" __global__ void undeclared_block(int* out) {
  __shared__ int slot[1024 + 32];
  const int warp = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 32), 0);
  slot[1024 + warp] = 2;
  __syncthreads();
  out[threadIdx.x] = slot[threadIdx.x];
}

// Strided stages: each stage is an 8192-byte tile followed by a 256-byte
// header, stride 8448, four stages (s = k & 3). The copy writes
// [8448*s, 8448*s + 8192); 64 threads write header words at 8448*s' + 8192 +
// 4*tid. The intervals [0, 33536) and [8192, 33792) overlap, but no header
// word lies in any stage's tile: NoAlias for every pair of stages. A word
// written inside a tile (8448*s + 4096 + 4*tid) does alias the copy.
constexpr uint32_t kTile = 8192;
constexpr uint32_t kStride = 8448;
constexpr uint32_t kBar = 4 * kStride;

__device__ __forceinline__ void bulk_copy(void* dst, const void* src, uint32_t bytes, void* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_u32(dst)),
      "l"(src), "r"(bytes), "r"(smem_u32(bar))
      : "memory");
}

extern "C" __global__ void __launch_bounds__(64) strided_headers(const float* src, float* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    const int s = k & 3;
    if (threadIdx.x == 0) bulk_copy(smem + s * kStride, src + k * 2048, kTile, smem + kBar + 8 * s);
    reinterpret_cast<float*>(smem + s * kStride + kTile)[threadIdx.x] = static_cast<float>(k);
    reinterpret_cast<float*>(smem + s * kStride + kTile / 2)[threadIdx.x] = 1.f;
    __syncthreads();
  }
  out[threadIdx.x] = reinterpret_cast<float*>(smem + kTile)[threadIdx.x];
}

// A tensor copy's extent is not an operand: it is the expect_tx byte count
// announced on its completion barrier (16384), so the copy of stage s writes
// [16384*s, 16384*s + 16384) and the word after the ring (65536 + 64) is
// outside it.
extern "C" __global__ void tensor_expect_tx(const void* tmap, float* out, int iters) {
  extern __shared__ __align__(1024) uint8_t smem[];
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    const int s = k & 3;
    const uint32_t bar = smem_u32(smem + 65536 + 8 * s);
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16384;" ::"r"(bar) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
              smem_u32(smem + s * 16384)),
          "l"(tmap), "r"(0), "r"(k * 64), "r"(bar)
          : "memory");
    }
    if (threadIdx.x == 0) *reinterpret_cast<int*>(smem + 65536 + 64) = k;
    __syncthreads();
  }
  out[threadIdx.x] = reinterpret_cast<float*>(smem)[threadIdx.x];
}

// CUTLASS's PipelineState: ++index; if (index == 4) { index = 0; phase ^= 1; }
// (nvcc: selp of the wrap, xor with a selp 1 / 0): index [0, 3], phase [0, 1].
struct PipelineState {
  int index = 0;
  unsigned phase = 0;
  __device__ void advance() {
    if (++index == 4) {
      index = 0;
      phase ^= 1;
    }
  }
};
extern "C" __global__ void pipeline_state(int* out, int n) {
  __shared__ int slot[64];
  PipelineState st;
#pragma unroll 1
  for (int k = 0; k < n; ++k) {
    slot[st.index] = k;
    slot[32 + st.phase] = k;
    __syncthreads();
    st.advance();
  }
  out[threadIdx.x] = slot[threadIdx.x & 63];
}

// The stage advances only on some trips (a data-dependent condition): nvcc
// nests two selp, `s = skip ? s : (s > 1 ? 0 : s + 1)`: [0, 2].
extern "C" __global__ void conditional_advance(int* out, const int* advance, int n) {
  __shared__ int slot[64];
  int s = 0;
#pragma unroll 1
  for (int k = 0; k < n; ++k) {
    slot[s] = k;
    __syncthreads();
    if (advance[k]) {
      s = s + 1;
      if (s >= 3) s = 0;
    }
  }
  out[threadIdx.x] = slot[threadIdx.x & 63];
}

// A wrap whose body has a side effect (it counts the laps): nvcc keeps the
// branch, `s += 1; if (s != 3) goto keep; laps[k] = 1; s = 0; keep:`: the s
// that reaches the loop head is [0, 2] (s + 1 only where it differs from 3).
extern "C" __global__ void branch_wrap(int* out, int* laps, int n) {
  __shared__ int slot[64];
  int s = 0;
#pragma unroll 1
  for (int k = 0; k < n; ++k) {
    slot[s] = k;
    __syncthreads();
    if (++s == 3) {
      s = 0;
      laps[k] = 1;
    }
  }
  out[threadIdx.x] = slot[threadIdx.x & 63];
}

// __block_size__((128, 2, 1)) declares .reqntid 128, 2, 1: %tid.x in
// [0, 127], %tid.y in [0, 1]: slot[tid.x + 128 * tid.y] at [0, 1020], and
// slot[tid.y] at [0, 4].
extern "C" __global__ void __block_size__((128, 2, 1)) required_block(int* out) {
  __shared__ int slot[256];
  slot[threadIdx.x + 128 * threadIdx.y] = 1;
  __syncthreads();
  out[threadIdx.x] = slot[threadIdx.y];
}

// Two indices packed into one word, as nvcc packs them (bfi, or): the stage
// (blockIdx.x % 3) above bit 7, a thread's offset below it, built from three bit fields
// of tid as CUTLASS's scale-factor copies do: s * 128 + [0, 127].
extern "C" __global__ void __launch_bounds__(128) packed_index(int* out) {
  __shared__ int slot[3 * 128];
  const unsigned s = blockIdx.x % 3u;
  const unsigned t = threadIdx.x;
  const unsigned low = ((t >> 2) & 7u) | (((t & 96u) >> 5) << 4) | ((t >> 1) & 64u);
  slot[(s << 7) | low] = 1;
  __syncthreads();
  out[t] = slot[t];
}

// A declared cluster (__cluster_dims__(2, 1, 1): .reqnctapercluster 2, 1, 1)
// bounds %cluster_ctarank to [0, 1]; undeclared, it is in [0, 15].
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) declared_cluster(int* out) {
  __shared__ int slot[16];
  slot[cluster_rank()] = 1;
  __syncthreads();
  out[threadIdx.x] = slot[threadIdx.x & 15];
}

extern "C" __global__ void undeclared_cluster(int* out) {
  __shared__ int slot[16];
  slot[cluster_rank()] = 1;
  __syncthreads();
  out[threadIdx.x] = slot[threadIdx.x & 15];
}

// The same packing with the bit-field insert written as inline asm (nvcc
// emits bfi for CuTe's swizzled layouts): bfi(row, col, 4, 28) = 16 * row +
// col with row in [0, 3], col in [0, 7]; then (s << 7) | that.
extern "C" __global__ void __launch_bounds__(128) inserted_index(int* out) {
  __shared__ int slot[3 * 128];
  const unsigned s = blockIdx.x % 3u;
  const unsigned t = threadIdx.x;
  unsigned low;
  asm("bfi.b32 %0, %1, %2, 4, 28;" : "=r"(low) : "r"((t & 96u) >> 5), "r"((t >> 2) & 7u));
  slot[(s << 7) | low] = 1;
  __syncthreads();
  out[t] = slot[t];
}

// Role branches narrow the thread index of the code they guard (160 threads:
// four consumer warps and warp 4). nvcc writes `tid / 32 != 4` as
// `(tid & -32) != 128` or `tid >> 5`.
extern "C" __global__ void __launch_bounds__(160) role_guarded(int* out, int n) {
  __shared__ int slot[160];
  const int warp = threadIdx.x / 32;
  if (warp != 4) {
    slot[threadIdx.x] = n;  // t in [0, 127]
  } else {
    atomicAdd(out, n);  // warp 4 does other work
  }
  if (threadIdx.x < 64) slot[threadIdx.x + 96] = 3;  // t in [0, 63]
  __syncthreads();
  out[threadIdx.x] = slot[threadIdx.x];
}

// CuTe's Swizzle<3, 4, 3> on a shared address: a ^ ((a & 896) >> 3) flips
// bits 4-6 only, so the 16-byte chunk stays in its 128-byte row. Rows 8 + r
// (r in [0, 7]) and chunks c in [0, 7] of `slot`: the store writes within
// bytes [1024, 2048) (the analysis bounds the start by the rows' bytes,
// [1024, 2047], so the end by 2047 + 16).
extern "C" __global__ void xor_swizzle(const int4* in, int* out) {
  __shared__ __align__(1024) int4 slot[256];
  const unsigned t = threadIdx.x;
  uintptr_t a = reinterpret_cast<uintptr_t>(&slot[64 + 8 * ((t >> 3) & 7) + (t & 7)]);
  a ^= (a & 896) >> 3;
  *reinterpret_cast<int4*>(a) = in[t];
  __syncthreads();
  out[t] = slot[t & 255].x;
}

// Triton's layout arithmetic for a scratch tile: the offset is an or of
// masked and shifted thread-index bits, then xor-ed with a constant for the
// neighbouring rows. The bits it may set are 0x33F8 (at most 13304); the
// next power of two would be 16383. Then a double-buffer offset
// ((k & 1) * 8192) ^ 8192, which is 0 or 8192 (the next power of two: 16383).
extern "C" __global__ void __launch_bounds__(128) layout_bits(int k, int* out) {
  __shared__ __align__(16) unsigned char bytes[16384 + 8192 + 8];
  const unsigned t = threadIdx.x;
  const unsigned x = ((t & 12) << 10) | ((t & 3) << 5) | ((t & 12) << 1) | ((t << 3) & 896);
  bytes[x] = 1;
  bytes[x ^ 24] = 2;
  bytes[(((k & 1) * 8192) ^ 8192) + (t & 7)] = 3;
  __syncthreads();
  out[t] = bytes[t * 181];
}

// Triton's Blackwell attention backward writes its dq layout-conversion
// scratch at x ^ 16j, x = (tid & 7) << 12 | (tid & 127) << 4: the or keeps
// its stride 4096 (the fields do not overlap), and the xor changes only the
// low field, whose bits stay among 0x7F0: x ^ 112 is at most 28672 + 2032 =
// 30704, not 28672 + 2047.
extern "C" __global__ void __launch_bounds__(128) xor_kept_stride(float v, float* out) {
  extern __shared__ __align__(16) unsigned char scratch_bytes[];
  const unsigned t = threadIdx.x;
  const unsigned x = ((t & 7) << 12) | ((t & 127) << 4);
  *reinterpret_cast<float4*>(scratch_bytes + x) = make_float4(v, v, v, v);
  *reinterpret_cast<float4*>(scratch_bytes + (x ^ 112)) = make_float4(v, v, v, v);
  __syncthreads();
  out[t] = reinterpret_cast<float*>(scratch_bytes)[t * 61];
}

// A grid-strided loop that starts one grid ahead and steps by the grid:
// `for (s = blockIdx.x + gridDim.x; s < 64; s += gridDim.x)`. Neither the
// start nor the step is bounded by a constant; only the loop's tests are
// (the entry test and the latch's `s < 64`, whose exit never reads s again).
// In the body s is in [1, 63].
extern "C" __global__ void grid_strided_counter(int v, int* out) {
  __shared__ int slot[64];
  for (int s = blockIdx.x + gridDim.x; s < 64; s += gridDim.x) slot[s] = v;
  __syncthreads();
  out[threadIdx.x] = slot[threadIdx.x & 63];
}

// The same loop from the block's own index: not beyond the grid.
extern "C" __global__ void block_strided_counter(int v, int* out) {
  __shared__ int slot[64];
  for (int s = blockIdx.x; s < 64; s += gridDim.x) slot[s] = v;
  __syncthreads();
  out[threadIdx.x] = slot[threadIdx.x & 63];
}

// A queue index masked by a mask the kernel loads as a byte (issue 34 P1,
// UCX's send queues): `i & cfg->mask` with the mask zero-extended from 8
// bits is in [0, 255] whatever i is. Stored into `bytes` at that index.
struct QueueConfig {
  unsigned char mask;
  unsigned short size;
};
extern "C" __global__ void byte_masked_index(const QueueConfig* cfg, unsigned i, unsigned char v, int* out) {
  __shared__ unsigned char bytes[256];
  bytes[i & cfg->mask] = v;
  __syncthreads();
  out[threadIdx.x] = bytes[threadIdx.x & 255];
}

// Two products of one kernel parameter by 88 (issue 34 P2, Mooncake's task
// record as nvcc computes it for sm_103: a `mad.lo.s64` at each use, one on
// the converted pointer): the same term, so the records' fields at +0 and
// +16 are 16 bytes apart.
extern "C" __global__ void parameter_product_twice(unsigned char* tasks, unsigned long long slot) {
  unsigned long long g, a, b;
  asm("cvta.to.global.u64 %0, %1;" : "=l"(g) : "l"(tasks));
  asm("mad.lo.s64 %0, %1, 88, %2;" : "=l"(a) : "l"(slot), "l"(g));
  asm("mad.lo.s64 %0, %1, 88, %2;" : "=l"(b) : "l"(slot), "l"(tasks));
  *reinterpret_cast<volatile unsigned char*>(a) = 1;
  *reinterpret_cast<volatile unsigned long long*>(b + 16) = 2;
}
