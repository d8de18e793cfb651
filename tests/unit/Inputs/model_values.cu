// Addresses for the value-analysis tests (ModelValuesTest.cpp).
#include <cstdint>

// Shared symbol + affine offsets; two distinct shared arrays.
extern "C" __global__ void shared_offsets(int* out) {
  __shared__ int a[256];
  __shared__ int b[256];
  a[threadIdx.x] = 1;          // a + 4*tid
  a[threadIdx.x + 64] = 2;     // a + 4*tid + 256
  b[threadIdx.x] = 3;          // b + 4*tid
  __syncthreads();
  out[threadIdx.x] = a[(threadIdx.x * 2) & 255] + b[0];
}

// Generic pointers from cvta: shared vs global.
__device__ __noinline__ void store_generic(int* p, int v) { *p = v; }
extern "C" __global__ void generic_pointers(int* out) {
  __shared__ int s[32];
  store_generic(&s[threadIdx.x & 31], 1);
  store_generic(out + threadIdx.x, 2);
}

// Parameters: the same param through the raw generic pointer and cvta.to.global.
extern "C" __global__ void params(unsigned* flag, int* data) {
  data[threadIdx.x] = 5;
  atomicAdd(flag, 1u);
  asm volatile("st.relaxed.gpu.u32 [%0], %1;" ::"l"(flag), "r"(0u) : "memory");
}

// Barrier words and data in one dynamic shared array: disjoint ranges.
extern "C" __global__ void extern_shared(int* out, int stage) {
  extern __shared__ __align__(16) unsigned char smem[];
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem);
  int* data = reinterpret_cast<int*>(smem + 1024);
  unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(bars + (stage & 3)));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
  data[threadIdx.x + ((stage & 3) << 8)] = 7;
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
  out[0] = data[threadIdx.x];
}

// A pointer bumped in a loop: loop counter term.
extern "C" __global__ void loop_pointer(int* out, int n) {
  int* p = out + threadIdx.x;
  for (int i = 0; i < n; ++i) {
    *p = i;
    p += 128;
  }
}

// Fields of a by-value struct parameter are distinct objects.
struct Args {
  unsigned* flag;
  int* data;
};
extern "C" __global__ void struct_params(Args a) {
  a.data[threadIdx.x] = 1;
  atomicAdd(a.flag, 1u);
  a.flag[1] = 0;
}

// A peer CTA's shared memory through mapa: shared::cluster.
extern "C" __global__ void __cluster_dims__(2, 1, 1) remote_shared(int* out) {
  __shared__ int s[32];
  unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(&s[threadIdx.x & 31]));
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(remote) : "r"(local));
  asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(remote), "r"(1) : "memory");
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  out[threadIdx.x] = s[threadIdx.x & 31];
}
