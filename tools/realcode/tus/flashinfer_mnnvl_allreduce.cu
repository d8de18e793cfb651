// Driver (our own): FlashInfer's multi-node NVLink (MNNVL) all-reduce
// (flashinfer/comm/trtllm_mnnvl_allreduce.cuh): the one-shot Lamport kernel fused
// with RMSNorm, the two-shot scatter/broadcast kernel and the Lamport RMSNorm
// kernel that follows it, over multicast/unicast peer buffers with a rotating
// buffer flag. bf16, 8 ranks, no quantization, as the library's launchers
// instantiate them. Built with -I <flashinfer>/data/include and
// -I <flashinfer>/data/spdlog/include (logging.h).
#include "flashinfer/comm/trtllm_mnnvl_allreduce.cuh"

namespace mnnvl = flashinfer::trtllm_mnnvl_allreduce;
using mnnvl::QuantType;

void* const kOneShot = reinterpret_cast<void*>(
    &mnnvl::oneshotAllreduceFusionKernel<8, __nv_bfloat16, true, QuantType::kNone>);
void* const kTwoShot =
    reinterpret_cast<void*>(&mnnvl::twoshotAllreduceKernel<8, __nv_bfloat16, true>);
void* const kRmsNorm =
    reinterpret_cast<void*>(&mnnvl::rmsNormLamport<__nv_bfloat16, QuantType::kNone, false, 1>);
