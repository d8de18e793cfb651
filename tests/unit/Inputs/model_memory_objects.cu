// Memory objects for the memory-analysis unit tests (issue 11): static shared
// arrays, the dynamic buffer, global symbols, kernel parameters, and a
// generic pointer that may reach either shared or global memory (an unknown
// object). Different named variables never alias; a parameter may point to
// any global memory; shared and global memory are disjoint.
#include <cstdint>

__device__ unsigned g_count;
__device__ unsigned g_flag;
__device__ float g_table[256];

extern "C" __global__ void named_objects(float* out, const float* in) {
  __shared__ float a[128];
  __shared__ float b[128];
  extern __shared__ float dyn[];
  a[threadIdx.x & 127] = in[threadIdx.x];
  b[threadIdx.x & 127] = 2.f;
  dyn[threadIdx.x] = 3.f;
  __syncthreads();
  atomicAdd(&g_count, 1u);
  atomicExch(&g_flag, 1u);
  g_table[threadIdx.x & 255] = a[(threadIdx.x + 1) & 127] + b[0] + dyn[0];
  out[threadIdx.x] = g_table[0];
}

// p is the shared tile for odd threads and the output for even ones: a
// generic store through it may touch either.
extern "C" __global__ void generic_either(float* out, int n) {
  __shared__ float tile[64];
  tile[threadIdx.x & 63] = 1.f;
  __syncthreads();
  float* p = (threadIdx.x & 1) ? tile : out + blockIdx.x * 64;
  p[threadIdx.x >> 1 & 31] = static_cast<float>(n);
  __syncthreads();
  out[threadIdx.x] += tile[threadIdx.x & 63];
}

// Access widths: a float4 store (16 bytes), a byte store (1), an 8-byte
// mbarrier word, ldmatrix (16 bytes per thread's row address).
extern "C" __global__ void access_sizes(float* out) {
  __shared__ __align__(16) float4 vec[16];
  __shared__ uint8_t bytes[64];
  __shared__ __align__(8) uint64_t bar;
  __shared__ __align__(16) uint16_t rows[8 * 8];
  vec[threadIdx.x & 15] = make_float4(1.f, 2.f, 3.f, 4.f);
  bytes[threadIdx.x & 63] = 1;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(static_cast<uint32_t>(__cvta_generic_to_shared(&bar)))
                 : "memory");
  reinterpret_cast<uint32_t*>(rows)[threadIdx.x & 31] = threadIdx.x;
  __syncthreads();
  uint32_t frag;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
               : "=r"(frag)
               : "r"(static_cast<uint32_t>(__cvta_generic_to_shared(rows + (threadIdx.x & 7) * 8))));
  out[threadIdx.x] = vec[0].x + bytes[0] + static_cast<float>(frag);
}
