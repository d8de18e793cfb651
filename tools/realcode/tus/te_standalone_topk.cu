// Driver (our own), session 10 fresh set: Transformer Engine's standalone radix top-k
// (common/util/standalone_topk.cuh, from the transformer-engine-torch 2.20.2 sdist's common
// headers; used by its fused MoE router): a multi-block radix select whose blocks share
// per-row histograms and candidate buffers in global memory, the last block of each pass
// found by __threadfence + atomicInc on a counter, plus the one-block variant. Our host
// function calls TE's own entry for float scores with int indices. sm_90a.
// Built with -I <te>/common_headers -I <te>/common_headers/common/include.
#include "common/util/logging.h"  // NVTE_CHECK_CUDA, which the header uses without including it
#include "common/util/standalone_topk.cuh"

void TopK(void* buf, size_t& buf_size, const float* in, int batch, int len, int k, float* out,
          int* out_idx, cudaStream_t stream) {
  nv::standalone_topk<float, int>(buf, buf_size, in, batch, len, k, out, out_idx, true, stream);
}
