// Driver (our own): CUTLASS's Hopper warp-specialized GEMM (one producer warp issuing TMA
// loads, one consumer warp group running wgmma) on a 2x1 cluster, so the A tile is TMA-
// multicast across the cluster, with the TMA warp-specialized epilogue that stages D in
// shared memory and writes it with a TMA store.
#include "sm90_gemm.h"

using WsClusterTmaStore = realcode::Sm90Gemm<
    cute::Shape<cute::_128, cute::_128, cute::_64>, cute::Shape<cute::_2, cute::_1, cute::_1>,
    cutlass::gemm::KernelTmaWarpSpecialized, cutlass::epilogue::TmaWarpSpecialized>;

REALCODE_EMIT_KERNEL(kWsClusterTmaStore, WsClusterTmaStore::Kernel);
