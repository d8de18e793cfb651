// A false positive found in the real-code corpus (docs/real-code.md, "Corpus 6"):
// FlashInfer's TensorRT-LLM one-shot all-reduce (flashinfer_allreduce_fusion,
// allreduce_fusion_kernel_oneshot_lamport) and its MNNVL all-reduce
// (flashinfer_mnnvl_allreduce, oneshotAllreduceFusionKernel). Each rank pushes its packets
// into every rank's Lamport buffer with plain (weak) 16-byte stores, polls its own buffer with
// ld.volatile.global.v4 until no -0.0 sentinel is left (the payload arrives in the poll
// itself), and then reads its own residual input, which no peer writes. The partner of the poll
// is this kernel on the peers, which writes nothing before its packets; the checker does not
// take the weak packet stores for the partner's signal, so it takes the partner to be outside
// the kernel and the residual read for guarded data. The partner model now counts a store of a
// whole packet that may write the polled word of a payload-carrying (vector) poll as the
// in-kernel partner's signal (model/Protocol.cpp, carriesPayload / inKernelSignalsFor). The broken twin (a value
// written beside the packets, read after the poll) is a real acquire-missing either way.
// RUN: %fenceline check --verify --checks=-*,acquire-missing %s
#include <cstdint>

constexpr int kRanks = 8;

__device__ __forceinline__ float4 load_volatile(const float4* p) {
  float4 v;
  asm volatile("ld.volatile.global.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p)
               : "memory");
  return v;
}
__device__ __forceinline__ bool has_sentinel(float4 v) {
  return __float_as_uint(v.x) == 0x80000000u || __float_as_uint(v.y) == 0x80000000u ||
         __float_as_uint(v.z) == 0x80000000u || __float_as_uint(v.w) == 0x80000000u;
}

// workspace[r]: rank r's Lamport buffer (IPC peer pointers); workspace[kRanks + r]: rank r's
// side table (the broken twin's extra data).
template <bool kSideData>
__device__ void one_shot(void** workspace, const float4* in, const float4* residual, float4* out, int rank,
                         int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = in[i];
  if (kSideData)
    for (int r = 0; r < kRanks; ++r) reinterpret_cast<float*>(workspace[kRanks + r])[rank * n + i] = v.x;
  for (int r = 0; r < kRanks; ++r) reinterpret_cast<float4*>(workspace[r])[rank * n + i] = v;  // weak packets
  const float4* mine = reinterpret_cast<const float4*>(workspace[rank]);
  float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int r = 0; r < kRanks; ++r) {
    float4 x;
    do {
      x = load_volatile(&mine[r * n + i]);
    } while (has_sentinel(x));
    sum.x += x.x;
    sum.y += x.y;
    sum.z += x.z;
    sum.w += x.w;
  }
  float extra = 0.f;
  if (kSideData)
    for (int r = 0; r < kRanks; ++r) extra += reinterpret_cast<const float*>(workspace[kRanks + rank])[r * n + i];
  float4 res = residual[i];  // this rank's own input: not guarded by the packets
  out[i] = make_float4(sum.x + res.x + extra, sum.y + res.y, sum.z + res.z, sum.w + res.w);
}

__global__ void lamport_then_residual(void** workspace, const float4* in, const float4* residual, float4* out,
                                      int rank, int n) {
  one_shot<false>(workspace, in, residual, out, rank, n);
}

__global__ void lamport_with_side_data(void** workspace, const float4* in, const float4* residual, float4* out,
                                       int rank, int n) {
  one_shot<true>(workspace, in, residual, out, rank, n);  // expect: acquire-missing
}
