// Driver (our own): CUTLASS's Hopper ping-pong GEMM: two consumer warp groups take turns on
// alternating output tiles (ordered by named barriers) while a producer warp feeds both through
// a TMA pipeline; persistent tile scheduler, 1x2 cluster, TMA-store epilogue.
#include "sm90_gemm.h"

using Pingpong = realcode::Sm90Gemm<
    cute::Shape<cute::_64, cute::_128, cute::_64>, cute::Shape<cute::_1, cute::_2, cute::_1>,
    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::epilogue::TmaWarpSpecialized>;

REALCODE_EMIT_KERNEL(kPingpong, Pingpong::Kernel);
