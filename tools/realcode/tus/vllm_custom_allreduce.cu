// Driver (our own): the custom all-reduce that FlashInfer ships from vLLM
// (flashinfer/comm/vllm_custom_all_reduce.cuh): GPUs of one NVLink domain read each other's
// buffers through IPC pointers and synchronize with per-block flag barriers in peer memory
// (volatile flags for the start and end barriers, st.release.sys / ld.acquire.sys for the
// barrier between the two stages). One-stage and two-stage kernels, half precision, 8 GPUs.
// Built with -I <flashinfer>/data/include.
#include "flashinfer/comm/vllm_custom_all_reduce.cuh"

void* const kOneStage = reinterpret_cast<void*>(&vllm::cross_device_reduce_1stage<half, 8>);
void* const kTwoStage = reinterpret_cast<void*>(&vllm::cross_device_reduce_2stage<half, 8>);
