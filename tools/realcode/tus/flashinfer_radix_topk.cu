// Driver (our own): FlashInfer's multi-CTA radix top-k (flashinfer/topk.cuh), the kernels its
// sampling and sparse-attention paths launch when a row is longer than one CTA can hold: each
// row is split over a group of CTAs that meet at a software barrier in global memory
// (AdvanceRadixGroupBarrier: fence.acq_rel.gpu + red.relaxed.gpu arrive, ld.acquire.gpu spin by
// thread 0, __syncthreads broadcast) once per radix round, exchanging triple-buffered 256-bin
// histograms through global atomics; the last CTA to leave resets the group state for the next
// launch (RadixGroupResetStateLastCTA). Two instantiations, as the library's dispatch picks them
// for a half-precision row with 16-byte vectors, multi-CTA, non-deterministic: the unified top-k
// (indices and values) and the top-k renormalization of probabilities (float atomics on the
// group's top-k sum). Built with -I <flashinfer>/data/include.
#include "flashinfer/math.cuh"  // topk.cuh uses math::ptx_rcp without including it
#include "flashinfer/topk.cuh"

namespace sampling = flashinfer::sampling;

void* const kTopK = reinterpret_cast<void*>(
    &sampling::RadixTopKKernel_Unified<1024, 8, false, false, sampling::RadixTopKMode::Basic,
                                       half, int32_t>);
void* const kRenormProb = reinterpret_cast<void*>(
    &sampling::RadixTopKRenormProbKernel_MultiCTA<1024, 4, false, false, float, int32_t>);
