// Names as nvcc records them, for tests/report/display-names.test: atomicAdd
// and every other internal-linkage function gets nvcc's `_INTERNAL_<hash>_...`
// namespace, functions in an anonymous namespace `_GLOBAL__N__<hash>_...`, and
// the toolkit's headers are named through nvcc's bin folder
// (`.../bin/../targets/...`). The producer raises its flag with a relaxed
// atomicAdd after writing the data (release-missing); the consumer acquires.
namespace {

__device__ __forceinline__ void bump(int* flag) {
  atomicAdd(flag, 1);  // expect: release-missing
}

__device__ __forceinline__ void raise_flag(int* flag) {
  bump(flag);
}

}  // namespace

__device__ __forceinline__ void wait_acquire(const int* flag, int value) {
  int v;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v != value);
}

__global__ void publish_through_atomic(int* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 42.0f;
    raise_flag(flag);
  } else {
    wait_acquire(flag, blockDim.x);
    out[threadIdx.x] = data[threadIdx.x];
  }
}
