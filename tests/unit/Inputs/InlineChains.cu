// Unit-test input for .loc inline chains (tests/unit/PtxDebugInfoTest.cpp):
// inner() is inlined into middle(), middle() into outer(), outer() into the
// kernel, so the store in inner() carries a three-frame chain.
__device__ __forceinline__ void chain_inner(int* p, int v) {
  p[v] = v + 1;  // chain_inner:store
}
__device__ __forceinline__ void chain_middle(int* p, int v) {
  chain_inner(p, v * 3);  // chain_middle:call
}
__device__ __forceinline__ void chain_outer(int* p, int v) {
  chain_middle(p, v ^ 5);  // chain_outer:call
}
extern "C" __global__ void chain_kernel(int* p) {
  chain_outer(p, threadIdx.x);  // chain_kernel:call
}
