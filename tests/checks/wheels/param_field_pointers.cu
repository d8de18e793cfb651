// Two pointer fields of one by-value struct whose offsets add up alike: `args.counters` at +104
// and `args.flags` at +40 (a `__grid_constant__` struct, read through its address, as a by-value
// argument indexed at run time is). Block 0 writes `args.counters[8]` (the second field's value
// plus 32) and raises a flag; block 1 waits on the flag and reads `args.flags[24]` (the first
// field's value plus 96). Two fields hold two pointers: the write and the read are not one word.
// Main named a value read from a parameter field "the parameter plus the field's offset", so both
// addresses were "the parameter plus 136", one word (`must-alias`), and reported the hand-off
// (release-missing and acquire-missing) in the default tier. Two fields are two objects, as two
// pointer parameters are: the write is no data of the read, and nothing is reported.
// Broken twin: block 0 writes `args.flags[24]` itself before the unordered flag: the same word,
// release-missing and acquire-missing in the default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Args {
  int* pick[5];       // +0: indexed at run time
  int* flags;         // +40
  long long pad1[7];  // +48
  int* counters;      // +104
};

__device__ __forceinline__ int poll(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void raise(int* p) { asm volatile("st.relaxed.gpu.global.u32 [%0], 1;" ::"l"(p) : "memory"); }

extern "C" __global__ void write_beside_read(const __grid_constant__ Args args, int* flag, int* out) {
  int* extra = args.pick[threadIdx.x % 5];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    args.counters[8] = 42;
    raise(flag);
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (poll(flag) == 0) {
    }
    out[0] = args.flags[24] + extra[0];
  }
}

extern "C" __global__ void write_then_read(const __grid_constant__ Args args, int* flag, int* out) {
  int* extra = args.pick[threadIdx.x % 5];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    args.flags[24] = 42;
    raise(flag);  // expect: release-missing
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (poll(flag) == 0) {  // expect: acquire-missing
    }
    out[0] = args.flags[24] + extra[0];
  }
}
