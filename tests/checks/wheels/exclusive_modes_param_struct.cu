// Issue 34, NCCL's AlltoAll_LL (docs/real-code.md, "AlltoAll_LL: the first look again"): the kernel
// takes one large by-value struct, and indexes an array in it by the block, so nvcc takes the
// parameter's address once (`mov.b64 %rd, param`) and reads every field through that register,
// the backend byte too (`ld.param.b8 %rs, [%rd+OFF]`). The byte is the same for every thread of
// the launch: one launch runs one backend. In the counting backend every block writes its part and
// counts itself with a relaxed atomic; in the turn backend each block waits for its turn, reads
// the parts and passes the turn on with a release. No launch runs both, so no wait observes that
// count: silent in both tiers (main took a field read through the register for a value of the
// block, which separates no blocks, and paired the count with the wait: release-missing).
// The twin picks the backend by a field of the struct indexed by the block: both run in one
// launch, the turn blocks' wait may observe the counting blocks' count and read their parts:
// release-missing.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Args {
  unsigned* lock;
  float* parts;
  float* out;
  int n;
  int which;                   // one for the launch
  unsigned char backends[64];  // a table of backends, indexed by `which` or by the block
  int offsets[64];
};

__device__ __forceinline__ void wait_turn(const unsigned* lock, unsigned turn) {
  unsigned v;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(lock) : "memory");
  } while (v != turn);
}
__device__ __forceinline__ void pass_turn(unsigned* lock, unsigned turn) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(lock), "r"(turn) : "memory");
}
__device__ __forceinline__ void count(unsigned* lock) {
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(lock) : "memory");
}

// Safe: the backend byte of the by-value struct selects the protocol for the whole launch.
__global__ void backend_by_struct_field(const __grid_constant__ Args args) {
  const int i = threadIdx.x;
  const int at = args.offsets[blockIdx.x % 64] + i;
  if (args.backends[args.which & 63] == 1) {
    args.parts[at] = static_cast<float>(at);
    __syncthreads();
    if (i == 0) count(args.lock);
  } else {
    if (i == 0) wait_turn(args.lock, blockIdx.x);
    __syncthreads();
    args.out[at] = args.parts[at] + 1.0f;
    __syncthreads();
    if (i == 0) pass_turn(args.lock, blockIdx.x + 1);
  }
}

// Broken twin: the block's entry of the struct selects the protocol, so both run in one launch.
__global__ void backend_by_block_entry(const __grid_constant__ Args args) {
  const int i = threadIdx.x;
  const int at = args.offsets[blockIdx.x % 64] + i;
  if (args.backends[blockIdx.x % 64] == 1) {
    args.parts[at] = static_cast<float>(at);
    __syncthreads();
    if (i == 0) count(args.lock);  // expect: release-missing
  } else {
    if (i == 0) wait_turn(args.lock, blockIdx.x);
    __syncthreads();
    args.out[at] = args.parts[at] + 1.0f;
    __syncthreads();
    if (i == 0) pass_turn(args.lock, blockIdx.x + 1);
  }
}
