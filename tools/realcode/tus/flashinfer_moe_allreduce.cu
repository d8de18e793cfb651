// Driver (our own): TensorRT-LLM's MoE all-reduce fusions as FlashInfer ships
// them (pip flashinfer-python, flashinfer/comm/trtllm_moe_allreduce_fusion.cuh):
// the expert-output reduction and the MoE finalize fused with a one-shot
// Lamport all-reduce (each rank pushes its token slice into every peer's
// buffer through IPC pointers; the payload's "not yet written" sentinel is
// the flag), residual add and RMSNorm. Half precision, 8 ranks. Built with
// -I <flashinfer>/data/include and -I <flashinfer>/data/spdlog/include.
#include "flashinfer/comm/trtllm_moe_allreduce_fusion.cuh"

namespace moe = flashinfer::trtllm_moe_allreduce_fusion;

void* const kMoeReduce =
    reinterpret_cast<void*>(&moe::moereduce_allreduce_fusion_kernel_oneshot_lamport<half, 8, true, true, true, false>);
void* const kMoeFinalize =
    reinterpret_cast<void*>(&moe::moefinalize_allreduce_fusion_kernel_oneshot_lamport<half, 8, true, true, false>);
