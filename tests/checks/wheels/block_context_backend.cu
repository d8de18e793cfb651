// Shapes C and U-credit of NCCL's network kernels (docs/real-code.md, "NCCL: shapes C, D and
// U-credit decided"): each block picks a context by its position (`blockIdx.x % 3` or a mask, as
// the launch says) and the context's backend by a byte of a by-value parameter array at that
// context. One backend keeps a signal's offset (a virtual reset: the offset takes the signal's
// value; a wait adds the offset to its target), the other counts completions with a relaxed max
// and waits for the count with relaxed loads. The code runs the backends' switches one after the
// other, so the offset's store reaches the count's max and the count's wait reaches the offset's
// load along the control flow; but a block's backend is one byte, read at one context index, for
// the whole launch: no block runs both. No default-tier finding.
// The twin picks the backend anew on every trip of a loop (the context index moves with the
// trip): one block writes the offset on one trip and raises the count on the next, another block
// of the context waits for the count and reads the offset: release-missing and acquire-missing.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Args {
  unsigned char backend[4];         // per context: 2 (offsets) or 3 (counted completions)
  unsigned char nctx;               // 3, or a power of two
  unsigned long long* done;         // backend 3: completions counted per context
  unsigned long long* offsets;      // backend 2: one signal's offset per context
  const unsigned long long* signals;  // backend 2: the signal words (raised by the network)
  unsigned long long* out;
  int trips;
};

__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long ld_relaxed_sys(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing
  return v;
}
__device__ __forceinline__ void max_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void max_relaxed_twin(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect: release-missing
}
__device__ __forceinline__ unsigned long long ld_relaxed_twin(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}

// The block's context: by a division or by a mask, as the launch says.
__device__ __forceinline__ unsigned context(const Args& args, unsigned position) {
  return args.nctx == 3 ? position % 3 : position & (args.nctx - 1);
}

// One pass of the protocol: each step is one block-wide phase (a barrier between two phases keeps
// them apart in the code, as NCCL's inlined calls do).
template <bool kTwin>
__device__ __forceinline__ void pass(const Args& args, unsigned ctx, unsigned long long value) {
  const unsigned char be = args.backend[ctx];
  // Reset the signal: backend 2 moves its offset to the signal's value.
  if (threadIdx.x == 0 && be == 2) args.offsets[ctx] = ld_relaxed_sys(&args.signals[ctx]);
  __syncthreads();
  // Complete: backend 3 counts.
  if (threadIdx.x == 0 && be != 2) {
    if (kTwin) max_relaxed_twin(&args.done[ctx], value + 1);
    else max_relaxed(&args.done[ctx], value + 1);
  }
  __syncthreads();
  // Wait: backend 3 for the count.
  if (threadIdx.x == 0 && be != 2) {
    if (kTwin) {
      while (ld_relaxed_twin(&args.done[ctx]) < value) {
      }
    } else {
      while (ld_relaxed(&args.done[ctx]) < value) {
      }
    }
  }
  __syncthreads();
  // Backend 2 waits for the signal past its offset.
  if (threadIdx.x == 0 && be == 2) {
    const unsigned long long target = args.offsets[ctx] + 1;
    while (ld_relaxed_sys(&args.signals[ctx]) < target) {}
  }
  __syncthreads();
}

// Safe: one backend per block.
__global__ void backend_per_block(const __grid_constant__ Args args) {
  pass<false>(args, context(args, blockIdx.x), blockIdx.x);
  if (threadIdx.x == 0) args.out[blockIdx.x] = 1;
}

// Broken twin: the context, and with it the backend, moves with the trip.
__global__ void backend_per_trip(const __grid_constant__ Args args) {
  for (int t = 0; t < args.trips; ++t) pass<true>(args, context(args, blockIdx.x + t), blockIdx.x + t);
  if (threadIdx.x == 0) args.out[blockIdx.x] = 1;
}
