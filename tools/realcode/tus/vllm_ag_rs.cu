// Driver (our own), session 10 fresh set: vLLM's custom all-gather and reduce-scatter
// (csrc/custom_all_gather_reduce_scatter.cuh of the vllm 0.33.0 sdist; not its custom
// all-reduce, which the corpus has through FlashInfer). Peer buffers read through IPC pointers
// between start and end flag barriers (custom_collective_common.cuh), an NVLS multicast barrier
// and reduce-scatter, and the Lamport (poll-the-payload) all-gather and reduce-scatter over a
// multicast buffer with epoch words. bf16, 8 GPUs. Built with -I <vllm>/csrc.
#include <cuda_bf16.h>
#include "custom_all_gather_reduce_scatter.cuh"

void* const kAllGather = reinterpret_cast<void*>(&vllm::cross_device_all_gather<8>);
void* const kReduceScatter =
    reinterpret_cast<void*>(&vllm::cross_device_reduce_scatter<__nv_bfloat16, 8>);
void* const kMultimemBarrier =
    reinterpret_cast<void*>(&vllm::mnnvl_multimem_barrier_kernel<true, 8>);
void* const kMultimemReduceScatter =
    reinterpret_cast<void*>(&vllm::mnnvl_multimem_reduce_scatter_kernel<__nv_bfloat16, 8>);
void* const kLamportAllGather =
    reinterpret_cast<void*>(&vllm::mnnvl_lamport_all_gather<__nv_bfloat16, 8>);
void* const kLamportReduceScatter =
    reinterpret_cast<void*>(&vllm::mnnvl_lamport_reduce_scatter_kernel<__nv_bfloat16, 8>);
