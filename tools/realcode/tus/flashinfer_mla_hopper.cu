// Driver (our own): FlashInfer's Hopper MLA paged-attention kernel
// (flashinfer/attention/mla_hopper.cuh, BatchMLAPageAttentionHopperKernel), as FlashInfer's JIT
// instantiates it for DeepSeek's MLA (batch_mla_config.jinja: bf16 Q/KV/O, int32 indices,
// head_dim_ckv 512, head_dim_kpe 64), causal, with the traits BatchMLAPageAttentionHopper picks
// (2 stages, 64x64 tiles, 256 threads). Hand-written pipeline: a producer warp group loads paged
// K/V with cp.async (cutlass::PipelineAsync full/empty mbarriers), two consumer warp groups run
// wgmma on the stages and exchange softmax state and P through shared memory and named
// barriers; the split-KV merge runs after a cooperative-groups grid sync (the host launches it
// with cudaLaunchCooperativeKernel). Built with -I <flashinfer>/data/include.
#include "flashinfer/attention/mla_hopper.cuh"

namespace {
using Params = flashinfer::MLAParams<nv_bfloat16, nv_bfloat16, nv_bfloat16, int32_t>;
using KTraits = flashinfer::mla::hopper::HopperKernelTraits<
    /*CAUSAL=*/true, /*NUM_STAGES=*/2, /*HEAD_DIM_CKV=*/512, /*HEAD_DIM_KPE=*/64,
    /*CTA_TILE_Q=*/64, /*CTA_TILE_KV=*/64, nv_bfloat16, nv_bfloat16, nv_bfloat16, int32_t>;
}  // namespace

void* const kMlaHopper =
    reinterpret_cast<void*>(&flashinfer::mla::hopper::BatchMLAPageAttentionHopperKernel<KTraits, Params>);
