// Driver (our own): multi-GPU communication kernels FlashInfer ships from
// TensorRT-LLM (flashinfer/comm/trtllm_allreduce.cuh: one-shot and two-shot
// all-reduce over IPC peer buffers with per-block flag barriers) and its MoE
// all-to-all (flashinfer/comm/moe_alltoall_lamport.cuh: Lamport-style
// dispatch and combine, where the payload carries its own "not yet written"
// sentinel). Half precision, 8 ranks. Built with -I <flashinfer>/data/include and
// -I <flashinfer>/data/spdlog/include (logging.h).
#include "flashinfer/comm/trtllm_allreduce.cuh"
#include "flashinfer/comm/moe_alltoall_lamport.cuh"

namespace ar = flashinfer::trtllm_allreduce;
namespace a2a = flashinfer::moe_alltoall_lamport;

void* const kOneShot = reinterpret_cast<void*>(&ar::oneShotAllReduceKernel<half, 8, true, false>);
void* const kTwoShot = reinterpret_cast<void*>(&ar::twoShotAllReduceKernel<half, 8, true, false>);
void* const kDispatch = reinterpret_cast<void*>(&a2a::moeA2ALamportDispatchKernel<8, true, 0, false>);
void* const kCombine = reinterpret_cast<void*>(&a2a::moeA2ALamportCombineKernel<8, true, false>);
