// What the GEMM experiments need around the GEMM itself: seeded random bf16 inputs, a
// reference product (double accumulation, one thread per element), the bitwise
// comparison of a run's output with the first run's (mismatching words counted per run,
// the first few of them sampled for their position), the relative error against the
// reference, and the co-running memory-streaming kernel of the stress knob. None of it
// touches shared memory or another thread's data without a kernel boundary in between:
// nothing here for `fenceline check` to report.
#pragma once

#include <cuda_bf16.h>

#include <cstdint>

namespace lab::gemm {

constexpr unsigned kSamplesPerRun = 64;  // mismatching word indices kept per run

__device__ __forceinline__ uint32_t hashWord(uint64_t seed, uint64_t index) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + index * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return static_cast<uint32_t>(x >> 16);
}

// Uniform in [-1, 1), rounded to bf16: never zero-filled inputs.
__global__ void fillRandomBf16(__nv_bfloat16* data, size_t count, uint64_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    data[i] = __float2bfloat16(static_cast<float>(hashWord(seed, i) & 0xFFFFFF) / 8388608.0f - 1.0f);
}

// C[m][n] = sum_k A[m][k] * B[n][k], accumulated in double.
__global__ void referenceGemm(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (col >= n || row >= m) return;
  double sum = 0;
  for (int i = 0; i < k; ++i)
    sum += static_cast<double>(__bfloat162float(a[static_cast<size_t>(row) * k + i])) *
           static_cast<double>(__bfloat162float(b[static_cast<size_t>(col) * k + i]));
  c[static_cast<size_t>(row) * n + col] = static_cast<float>(sum);
}

// sums[0] += (out - ref)^2, sums[1] += ref^2, sums[2] += count of non-finite outputs
// (the poison, 0xFFFFFFFF, is a NaN: an element no thread wrote lands there).
__global__ void errorSums(const float* out, const float* ref, size_t count, double* sums) {
  double diff = 0, norm = 0, bad = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const double o = out[i], r = ref[i];
    if (!isfinite(o)) {
      bad += 1;
      continue;
    }
    diff += (o - r) * (o - r);
    norm += r * r;
  }
  atomicAdd(&sums[0], diff);
  atomicAdd(&sums[1], norm);
  atomicAdd(&sums[2], bad);
}

// Counts the words of `out` that differ bitwise from `first`; the first kSamplesPerRun of
// them (in no particular order) are recorded by index.
__global__ void compareBitwise(const uint32_t* out, const uint32_t* first, size_t words, unsigned* mismatches,
                               uint32_t* samples) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (out[i] == first[i]) continue;
    const unsigned slot = atomicAdd(mismatches, 1u);
    if (slot < kSamplesPerRun) samples[slot] = static_cast<uint32_t>(i);
  }
}

// The co-running memory kernel: streams through `words` words (read, add, write back)
// until the host's stop flag is set or `limitNs` has passed, looking at the flag every 32
// vectors per thread (a pass over the buffer takes tens of milliseconds; the first
// version looked once per pass and a batch of 96 GEMMs waited for it). Launched on its own
// stream before a batch of GEMMs, stopped by a memset of the flag behind the batch; it
// uses no shared memory and few registers, so it fits beside the GEMM's one CTA per SM.
__global__ void memoryStress(uint4* buffer, size_t words, const volatile unsigned* stop, uint64_t limitNs) {
  uint64_t start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  const size_t vectors = words / 4, stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  for (unsigned step = 1;; ++step) {
    uint4 v = buffer[i];
    v.x += step;
    buffer[i] = v;
    i += stride;
    if (i >= vectors) i -= vectors;
    if (step % 32 != 0) continue;
    uint64_t now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (*stop != 0 || now - start > limitNs) return;
  }
}

// The shared-memory co-runner (gemm.stress=2): each thread reads and rewrites 16-byte
// vectors of the block's own 32 KB of shared memory, conflict-free, as fast as it can, so
// that the SM's shared-memory pipe the GEMM's ldmatrix loads go through stays busy; it
// stops on the flag or after limitNs, and leaves one word in `sink` so that nothing folds.
constexpr unsigned kSharedStressBytes = 32 * 1024;
__global__ void sharedStress(unsigned* sink, const volatile unsigned* stop, uint64_t limitNs) {
  extern __shared__ uint4 stressTile[];
  constexpr unsigned kVectors = kSharedStressBytes / 16;
  for (unsigned i = threadIdx.x; i < kVectors; i += blockDim.x) stressTile[i] = make_uint4(i, i, i, i);
  __syncthreads();
  uint64_t start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  uint4 acc = make_uint4(0, 0, 0, 0);
  for (unsigned step = 1;; ++step) {
#pragma unroll 8
    for (unsigned j = 0; j < 32; ++j) {
      const unsigned at = (threadIdx.x + (step * 32 + j) * blockDim.x) % kVectors;
      uint4 v = stressTile[at];
      acc.x += v.x;
      v.y += step;
      stressTile[at] = v;
    }
    if (step % 8 != 0) continue;
    uint64_t now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (*stop != 0 || now - start > limitNs) break;
  }
  if (acc.x == 0xFFFFFFFFu) sink[blockIdx.x] = acc.x;
}

}  // namespace lab::gemm
