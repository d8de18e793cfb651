// Driver (our own), session 10 fresh set: Transformer Engine's grouped MXFP8 cast
// (common/cast/mxfp8/group_quantize_mxfp8.cuh with common/cast/core/grouped_tma.cuh, from the
// transformer-engine-torch 2.20.2 sdist's common headers): one launch quantizes a group of
// tensors (MoE experts); a kernel rewrites per-tensor TMA descriptors in shared memory
// (tensormap.replace) and publishes them to global memory with tensormap.cp_fenceproxy
// .release.gpu, the quantize kernel acquires them (fence.proxy.tensormap::generic.acquire.gpu)
// before its TMA loads and bulk stores. Our host function calls TE's own dispatcher
// (group_quantize<...>), which instantiates the kernels; no activation, no dbias. sm_100a.
// Built with -I <te>/common_headers -I <te>/common_headers/common/include.
#include "common/cast/mxfp8/group_quantize_mxfp8.cuh"

namespace te = transformer_engine;

void GroupQuantizeMxfp8(const te::GroupedTensor* input, const te::Tensor* noop,
                        te::GroupedTensor* output, te::Tensor* workspace,
                        const te::QuantizationConfig* config, cudaStream_t stream) {
  te::dispatch::mxfp8::group_quantize<false, false, false, te::Empty, nullptr>(
      input, nullptr, noop, output, nullptr, workspace, config, stream);
}
