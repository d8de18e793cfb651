// Shape S of NCCL's kernels (docs/real-code.md, "NCCL: shape S, per-block scratch slices"): each block
// accumulates into its own slice of one scratch buffer, `scratch + blockIdx.x * stride`, reading and
// writing the slice around a relaxed .gpu counter protocol between blocks (an arrival counted with
// a relaxed add, a wait for the count with relaxed loads). The write before the arrival and the
// read after the wait are the same expression, the same word for the threads of one block; the
// partner of the counter is another block, whose expression names its own slice.
//  - A stride that separates the blocks' extents (the slice's 256 words, 1024 bytes a block):
//    the partner's write never meets this block's read; the wait guards no data. No finding.
//  - A stride the analysis cannot bound (a kernel parameter): whether another block's slice meets
//    this one's (a stride of 0) is not decided: the data link is `block-slices`, release-missing
//    and acquire-missing belong to the strict tier.
//  - The twins read another block's slice (the next block's, or one word every block writes)
//    after the wait: the data crosses blocks, release-missing and acquire-missing in the default
//    tier.
//  - A per-block flag (`flags[blockIdx.x]`, raised by one warp of the block and polled by another):
//    the flag's word pins the partner to this block, whose slice is the read's: the data link
//    keeps its answer (release-missing and acquire-missing in the default tier).
// The rule: model/BlockSlices.cpp (MemoryAnalysis::blockSlices); model/Protocol.cpp, partnerInOwnBlock.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__device__ __forceinline__ unsigned ld_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void arrive(unsigned* p) {
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
}
__device__ __forceinline__ unsigned ld_relaxed_unbounded(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing
  return v;
}
__device__ __forceinline__ void arrive_unbounded(unsigned* p) {
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(p) : "memory");  // expect-strict: release-missing
}
__device__ __forceinline__ unsigned ld_relaxed_next(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ void arrive_next(unsigned* p) {
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(p) : "memory");  // expect: release-missing
}
__device__ __forceinline__ unsigned ld_relaxed_shared_word(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ void arrive_shared_word(unsigned* p) {
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(p) : "memory");  // expect: release-missing
}
__device__ __forceinline__ unsigned ld_relaxed_own_flag(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ void raise_own_flag(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");  // expect: release-missing
}

// Safe: 256 threads, a slice of 256 floats a block; each thread adds into its own word of the
// block's slice, the block counts its arrival, waits for every block's, and reads its word back.
__global__ void __launch_bounds__(256) slice_by_fixed_stride(float* scratch, unsigned* arrived,
                                                             const float* __restrict__ in, float* out) {
  float* slice = scratch + blockIdx.x * 256;
  slice[threadIdx.x] += in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    arrive(arrived);
    while (ld_relaxed(arrived) < gridDim.x) {
    }
  }
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = slice[threadIdx.x];
}

// Safe, but not decidedly: the slice's stride is a parameter (0 would make the blocks share one).
__global__ void slice_by_parameter_stride(float* scratch, unsigned stride, unsigned* arrived,
                                          const float* __restrict__ in, float* out) {
  float* slice = scratch + blockIdx.x * stride;
  slice[threadIdx.x] += in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    arrive_unbounded(arrived);
    while (ld_relaxed_unbounded(arrived) < gridDim.x) {
    }
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = slice[threadIdx.x];
}

// Broken twin: after the wait, each block reads the next block's slice: written by another block
// before its arrival, read here after a relaxed poll.
__global__ void __launch_bounds__(256) slice_of_the_next_block(float* scratch, unsigned* arrived,
                                                               const float* __restrict__ in, float* out) {
  float* slice = scratch + blockIdx.x * 256;
  const float* next = scratch + ((blockIdx.x + 1) % gridDim.x) * 256;
  slice[threadIdx.x] += in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    arrive_next(arrived);
    while (ld_relaxed_next(arrived) < gridDim.x) {
    }
  }
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = next[threadIdx.x];
}

// Broken twin: besides its slice, block 0 writes one word every block reads after the wait.
__global__ void __launch_bounds__(256) slice_and_one_shared_word(float* scratch, float* total, unsigned* arrived,
                                                                 const float* __restrict__ in, float* out) {
  float* slice = scratch + blockIdx.x * 256;
  slice[threadIdx.x] += in[threadIdx.x];
  if (blockIdx.x == 0 && threadIdx.x == 0) *total = in[0];
  __syncthreads();
  if (threadIdx.x == 0) {
    arrive_shared_word(arrived);
    while (ld_relaxed_shared_word(arrived) < gridDim.x) {
    }
  }
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = slice[threadIdx.x] + *total;
}

// Broken: one flag per block, raised by the block's second warp after it wrote the slice, polled by
// the first warp, which then reads the slice: the partner is this block's own warp (the flag's word
// names no other block's), and its slice is the one read.
__global__ void __launch_bounds__(64) slice_under_own_block_flag(float* scratch, unsigned* flags,
                                                                  const float* __restrict__ in, float* out) {
  float* slice = scratch + blockIdx.x * 40;  // 32 words and a pad
  const unsigned lane = threadIdx.x % 32;
  if (threadIdx.x >= 32) {
    slice[lane] = in[blockIdx.x * 32 + lane];
    __syncwarp();
    if (lane == 0) raise_own_flag(&flags[blockIdx.x], 1);
  } else {
    if (lane == 0) {
      while (ld_relaxed_own_flag(&flags[blockIdx.x]) == 0) {
      }
    }
    __syncwarp();
    out[blockIdx.x * 32 + lane] = slice[lane];
  }
}
