// Driver (our own), session 10 fresh set: Transformer Engine's MXFP8 cast
// (common/cast/mxfp8/quantize_mxfp8.cuh, from the common headers the transformer-engine-torch
// 2.20.2 sdist ships): tiles of the input brought into shared memory by TMA on mbarriers in a
// two-buffer ring, per-32-element e8m0 scales computed rowwise and columnwise, the FP8 output
// written back from shared memory by TMA bulk stores. Our host function calls TE's own
// dispatcher (quantize<...>), which instantiates the kernels for every input/output type and
// scaling direction it supports; no activation, no dbias. Blackwell only (sm_100a).
// Built with -I <te>/common_headers -I <te>/common_headers/common/include.
#include "common/cast/mxfp8/quantize_mxfp8.cuh"

namespace te = transformer_engine;

void QuantizeMxfp8(const te::Tensor& input, const te::Tensor* noop, te::Tensor* output,
                   te::Tensor* workspace, cudaStream_t stream) {
  te::dispatch::mxfp8::quantize<false, false, false, te::Empty, nullptr>(
      input, nullptr, noop, output, nullptr, workspace, false, stream);
}
