// Driver (our own): CUTLASS's Hopper cooperative GEMM (two consumer warp groups share one
// tile) with the stream-K tile scheduler, whose CTAs split the K loop of a tile and hand
// partial sums to each other through a global workspace guarded by flag barriers
// (cutlass/barrier.h); TMA-store cooperative epilogue.
#include "sm90_gemm.h"

using CooperativeStreamK = realcode::Sm90Gemm<
    cute::Shape<cute::_128, cute::_128, cute::_64>, cute::Shape<cute::_1, cute::_1, cute::_1>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative,
    cutlass::epilogue::TmaWarpSpecializedCooperative, cutlass::gemm::StreamKScheduler>;

REALCODE_EMIT_KERNEL(kCooperativeStreamK, CooperativeStreamK::Kernel);
