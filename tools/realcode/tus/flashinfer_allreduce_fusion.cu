// Driver (our own): FlashInfer's TensorRT-LLM all-reduce fusion kernels
// (flashinfer/comm/trtllm_allreduce_fusion.cuh): the one-shot Lamport kernel
// (payload packets carry their own "not yet written" sentinel, three rotating
// buffers, a flag counter) and the two-shot kernel synchronized by per-block
// flag barriers over IPC peer pointers, both fused with residual add + RMSNorm,
// bf16, 8 ranks, fp32 accumulation, as flashinfer's allreduce_fusion_op
// instantiates them. Built with -I <flashinfer>/data/include and
// -I <flashinfer>/data/spdlog/include (logging.h).
#include "flashinfer/comm/trtllm_allreduce_fusion.cuh"

namespace arf = flashinfer::trtllm_allreduce_fusion;
constexpr auto kNorm = arf::AllReduceFusionPattern::kARResidualRMSNorm;

void* const kOneShotLamport =
    reinterpret_cast<void*>(&arf::allreduce_fusion_kernel_oneshot_lamport<kNorm, __nv_bfloat16, 8, true>);
void* const kTwoShotSync =
    reinterpret_cast<void*>(&arf::allreduce_fusion_kernel_twoshot_sync<kNorm, __nv_bfloat16, 8, true>);
