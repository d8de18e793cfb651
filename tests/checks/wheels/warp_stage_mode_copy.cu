// NCCL's outbox copy of the backend byte (issue 34, shape C: docs/real-code.md, "NCCL: the outbox's
// copy and the stage tests"): a block-uniform mode byte from the parameters selects one of two
// protocols. Backend 2 keeps a signal's offset (a virtual reset: the offset takes the signal's
// value, a wait adds it to its target); the other backends count completions with a relaxed max
// and wait for the count with relaxed loads. The stage-0 warps (`warp < 1 + stage0Warps`) carry an
// outbox with its own copy of the byte; the other warps have none, and their copy is zeroed. The
// outbox's count and wait switch on the copy, and run only on the stage-0 warps: the stage test is
// repeated in front of them through a recomputed warp index. A thread's warp index and the bound are
// the same for the thread's whole life, so no path from the zeroing reaches the outbox: there the
// copy is the block's byte, and a block whose byte is 2 never counts. No default-tier finding.
// Two broken twins. One tests `warp <= bound` in front of the outbox: the first warp past stage 0
// has a zeroed copy and enters the outbox. The other reads the outbox's bound anew from memory that
// the host may change while the kernel runs (a bound for the stage that is not the one the copy was
// made with). In both, a warp with a zeroed copy counts and waits while its block's byte is 2 and
// thread 0 resets and reads the offset: release-missing and acquire-missing.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Args {
  unsigned char backend[4];            // per context: 2 (offsets) or 3 (counted completions)
  unsigned char nctx;                  // 3, or a power of two
  unsigned long long* done;            // counted completions, per context
  unsigned long long* offsets;         // backend 2: one signal's offset per context
  const unsigned long long* signals;   // backend 2: the signal words (raised by the network)
  unsigned long long* queue;           // the outbox's queue, per context
  unsigned long long* out;
  unsigned stage0Warps;                // the stage-0 work warps (warp 0 is the outbox's leader)
  const volatile unsigned* liveWarps;  // twin 2: the stage-0 warps, as the host now sets them
  int trips;
};

__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long ld_relaxed_sys(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void max_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ unsigned context(const Args& args, unsigned position) {
  return args.nctx == 3 ? position % 3 : position & (args.nctx - 1);
}

// The outbox of a stage-0 warp: a copy of the context's backend and its queue.
struct Outbox {
  unsigned char backend;
  unsigned long long* queue;
  unsigned slot;
};

enum class Twin { None, LessOrEqual, Reloaded };

template <Twin kTwin>
__device__ __forceinline__ void run(const Args& args) {
  const unsigned ctx = context(args, blockIdx.x);
  const unsigned bound = 1 + args.stage0Warps;
  Outbox box;
  if (threadIdx.x / 32 < bound) {
    box.backend = args.backend[ctx];
    box.queue = args.queue + ctx * 64;
    box.slot = (threadIdx.x / 32) * args.stage0Warps;
  } else {
    box.backend = 0;  // no outbox on this warp
    box.queue = nullptr;
    box.slot = 0;
  }
  // Reset the signal: backend 2 moves its offset to the signal's value.
  if (threadIdx.x == 0 && args.backend[ctx] == 2) args.offsets[ctx] = ld_relaxed_sys(&args.signals[ctx]);
  __syncthreads();
#pragma unroll 1
  for (int t = 0; t < args.trips; ++t) {
    const unsigned warp = threadIdx.x / 32;
    const bool outbox = kTwin == Twin::LessOrEqual ? warp <= bound
                        : kTwin == Twin::Reloaded  ? warp < 1 + *args.liveWarps
                                                   : warp < bound;
    if (outbox && threadIdx.x % 32 == 0) {
      box.queue[box.slot + t] = t;
      if (box.backend != 2) {  // the outbox counts its completions and waits for them
        max_relaxed(&args.done[ctx], t + 1);
        while (ld_relaxed(&args.done[ctx]) < t) {
        }
      }
    }
    __syncthreads();
  }
  // Backend 2 waits for the signal past its offset.
  if (threadIdx.x == 0 && args.backend[ctx] == 2) {
    const unsigned long long target = args.offsets[ctx] + 1;
    while (ld_relaxed_sys(&args.signals[ctx]) < target) {
    }
  }
}

// Safe: the outbox's tests agree; its copy is the block's byte wherever it is read.
__global__ void outbox_stage_copy(const __grid_constant__ Args args) {
  run<Twin::None>(args);
  if (threadIdx.x == 0) args.out[blockIdx.x] = 1;
}

// Broken twin: `warp <= bound` lets the first warp past stage 0 into the outbox with a zeroed copy.
__global__ void outbox_stage_copy_twin(const __grid_constant__ Args args) {
  run<Twin::LessOrEqual>(args);  // expect: release-missing, acquire-missing
  if (threadIdx.x == 0) args.out[blockIdx.x] = 1;
}

// Broken twin: the outbox's bound is read anew from memory that changes.
__global__ void outbox_stage_copy_reloaded(const __grid_constant__ Args args) {
  run<Twin::Reloaded>(args);  // expect: release-missing, acquire-missing
  if (threadIdx.x == 0) args.out[blockIdx.x] = 1;
}
