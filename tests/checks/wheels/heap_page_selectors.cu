// Shape D of NCCL's network kernels (docs/real-code.md, "NCCL: shapes C, D and U-credit
// decided"): one symmetric heap, one base pointer in the kernel's parameters, and every object in
// it (a barrier's counters, a user's window) found by adding its page offset times 4096: the
// barrier's from a parameter field, the window's from its record in memory. The block arrives on
// the barrier with a relaxed reduction through the heap's base, later raises a completion count
// with a relaxed max, and a block that waits for the count reads the window's payload through the
// same base. The two accesses share the base only: which pages the two offsets select, the PTX
// does not say (NCCL's allocator keeps them apart). That overlap is a link the analysis cannot
// decide: release-missing belongs to the strict tier.
// The twin stores its payload into the window it later reads (the same page selector, the
// window's record) before raising the count: release-missing and acquire-missing in the default
// tier.
// The rule (model/Memory.cpp, undecidePageSelectors; docs/real-code.md, "page selectors"): two
// addresses on one base whose offsets select pages by different unknown values (4096 times a
// parameter field, 4096 times a value read from memory) name objects of an arena: their overlap
// is not decided (the link's tag: page-selectors).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Window {
  unsigned pad[7];
  unsigned page;                  // +28: the window's offset in the heap, in 4096-byte pages
};
struct Args {
  char* heap;                     // the heap's base
  unsigned barrierPage;           // the barrier's offset in the heap, in pages
  const Window* window;           // the payload's window
  unsigned long long* done;       // completions, raised with a relaxed max
  float* out;
};

__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect-strict: acquire-missing
  return v;
}
__device__ __forceinline__ unsigned long long ld_relaxed_twin(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");  // expect: acquire-missing
  return v;
}
__device__ __forceinline__ void arrive(unsigned* p) {
  asm volatile("red.relaxed.sys.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
}
__device__ __forceinline__ void max_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect-strict: release-missing
}
__device__ __forceinline__ void max_relaxed_twin(unsigned long long* p, unsigned long long v) {
  asm volatile("red.relaxed.gpu.global.max.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");  // expect: release-missing
}

// Safe: the barrier's page and the window's page are different objects of the heap.
__global__ void arrive_then_complete(const __grid_constant__ Args args) {
  if (threadIdx.x != 0) return;
  unsigned* counters = reinterpret_cast<unsigned*>(args.heap + 4096ull * args.barrierPage);
  arrive(&counters[blockIdx.x]);
  max_relaxed(args.done, blockIdx.x + 1);
  while (ld_relaxed(args.done) < blockIdx.x) {}
  const float* payload = reinterpret_cast<const float*>(args.heap + 4096ull * args.window->page);
  args.out[blockIdx.x] = payload[blockIdx.x];
}

// Broken twin: the payload itself is written, through the window's page, before the count.
__global__ void store_then_complete(const __grid_constant__ Args args) {
  if (threadIdx.x != 0) return;
  float* payload = reinterpret_cast<float*>(args.heap + 4096ull * args.window->page);
  payload[0] = blockIdx.x;
  max_relaxed_twin(args.done, blockIdx.x + 1);
  while (ld_relaxed_twin(args.done) < blockIdx.x) {}
  args.out[blockIdx.x] = payload[0];
}
