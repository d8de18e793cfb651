// Elections and warp roles for the thread-role tests (ModelRolesTest.cpp).
// In each kernel the `atomicAdd` (atom/red) is the guarded operation; a plain
// store marks code every thread runs.
#include <cuda/atomic>

extern "C" __global__ void lane_and(int* out) {
  unsigned lane = threadIdx.x & 31;
  out[threadIdx.x] = 1;
  if (lane == 0) atomicAdd(out, 1);
}

extern "C" __global__ void lane_rem(int* out) {
  if (threadIdx.x % 32 == 0) atomicAdd(out, 1);
  out[threadIdx.x] = 2;
}

__device__ __forceinline__ unsigned laneid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

extern "C" __global__ void lane_special(int* out) {
  if (laneid() == 0) atomicAdd(out, 1);
}

__device__ __forceinline__ bool elect_one() {
  unsigned pred = 0;
  asm volatile(
      "{\n"
      ".reg .b32 rx;\n"
      ".reg .pred px;\n"
      "elect.sync rx|px, %1;\n"
      "@px mov.s32 %0, 1;\n"
      "}\n"
      : "+r"(pred)
      : "r"(0xffffffffu));
  return pred != 0;
}

extern "C" __global__ void elect(int* out) {
  if (elect_one()) atomicAdd(out, 1);
}

extern "C" __global__ void thread_zero(int* out) {
  if (threadIdx.x == 0) atomicAdd(out, 1);
}

extern "C" __global__ void thread_zero_3d(int* out) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) atomicAdd(out, 1);
}

extern "C" __global__ void block_thread_zero(int* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(out, 1);
}

extern "C" __global__ void warp_role(int* out, int n) {
  unsigned warp = threadIdx.x / 32;
  if (warp == 0) {
    for (int i = 0; i < n; ++i) out[i] += 1;  // producer warp
  } else {
    atomicAdd(out + 1, 1);                     // consumers: a subset
  }
}

// The election is computed at entry and used after a loop, far away.
extern "C" __global__ void far_election(int* out, int n) {
  bool leader = (threadIdx.x & 31) == 0;
  if (leader) out[1] = 0;
  int acc = 0;
  for (int i = 0; i < n; ++i) acc += out[i * 7 + threadIdx.x];
  out[threadIdx.x] = acc;
  __syncwarp();
  if (leader) atomicAdd(out, acc);
}

// Not elections: a ballot and a bounds check.
extern "C" __global__ void not_elections(int* out, int n) {
  if (__all_sync(0xffffffffu, out[threadIdx.x] > 0)) atomicAdd(out, 1);
  if (threadIdx.x < n) atomicAdd(out + 2, 1);
  if ((threadIdx.x & 31) != 0) atomicAdd(out + 3, 1);
}

// Early return of every thread but one.
extern "C" __global__ void early_return(int* out) {
  if (threadIdx.x != 0) return;
  atomicAdd(out, 1);
}

// cute::elect_one_sync's shape: the flag register starts as a copy of a
// shared zero that is later reassigned; used by two elections in a row.
__device__ __forceinline__ bool elect_cute() {
  unsigned pred = 0;
  unsigned lane = 0;
  asm volatile(
      "{\n"
      ".reg .b32 %%rx;\n"
      ".reg .pred %%px;\n"
      "     elect.sync %%rx|%%px, %2;\n"
      "@%%px mov.s32 %1, 1;\n"
      "     mov.s32 %0, %%rx;\n"
      "}\n"
      : "+r"(lane), "+r"(pred)
      : "r"(0xffffffffu));
  return pred;
}

extern "C" __global__ void elect_twice(int* out) {
  if (threadIdx.x / 32 == 1 && elect_cute()) atomicAdd(out, 1);
  if (elect_cute()) atomicAdd(out + 1, 1);
}
