// Driver (our own), issue 29's last look (tools/realcode/lastlook.txt): NATTEN 0.21.7's Hopper
// fused neighborhood attention forward (csrc/include/natten/cuda/fna_hopper: a CUTLASS 3
// warp-specialized kernel with a TMA Q/K/V pipeline on mbarriers). NATTEN's build generates one
// instantiation file per configuration (scripts/autogen_hopper_fna.py) that is not in the sdist;
// this file is one such instantiation written by hand, as that script writes it minus the torch
// workspace: 2-D neighborhoods, bf16, head dim 128, Q tile 16x8, KV tile 16x8, non-causal, in
// the two schedules the script lists for it (WSCooperative and WSPingpong). Built with
// -I <natten>/csrc/include and NATTEN's vendored CUTLASS (third_party/cutlass/include).
#include <cuda_runtime.h>
#include <iostream>
#include <natten/cuda/fna_hopper/fna_forward.cuh>

namespace {
using Causal = cute::tuple<cute::false_type, cute::false_type>;
using QTile = cute::tuple<cute::Int<16>, cute::Int<8>>;
using KVTile = cute::tuple<cute::Int<16>, cute::Int<8>>;
using Gemm = cute::tuple<cute::Int<128>, cute::Int<128>, cute::Int<128>>;
using Dim = cute::tuple<int, int>;

template <natten::cuda::hopper::HopperKernelSchedule Schedule>
void run_forward(void* q, void* k, void* v, void* o, void* lse, int batch, int seqlen, int heads,
                 Dim shape, Dim window, Dim stride, Dim dilation, float scale, void* workspace,
                 cudaStream_t stream) {
  natten::cuda::fna_hopper::KernelForward<cutlass::bfloat16_t, Causal, QTile, KVTile, Gemm,
                                          Schedule>
      kernel;
  auto args = kernel.initialize(q, k, v, o, lse, batch, seqlen, seqlen, heads, 128, shape, shape,
                                shape, window, stride, dilation, 0, scale);
  kernel.run(args, workspace, stream);
}
}  // namespace

void natten_hopper_fna2d_coop(void* q, void* k, void* v, void* o, void* lse, int batch,
                              int seqlen, int heads, Dim shape, Dim window, Dim stride,
                              Dim dilation, float scale, void* workspace, cudaStream_t stream) {
  run_forward<natten::cuda::hopper::HopperKernelSchedule::WSCooperative>(
      q, k, v, o, lse, batch, seqlen, heads, shape, window, stride, dilation, scale, workspace,
      stream);
}

void natten_hopper_fna2d_pingpong(void* q, void* k, void* v, void* o, void* lse, int batch,
                                  int seqlen, int heads, Dim shape, Dim window, Dim stride,
                                  Dim dilation, float scale, void* workspace,
                                  cudaStream_t stream) {
  run_forward<natten::cuda::hopper::HopperKernelSchedule::WSPingpong>(
      q, k, v, o, lse, batch, seqlen, heads, shape, window, stride, dilation, scale, workspace,
      stream);
}
