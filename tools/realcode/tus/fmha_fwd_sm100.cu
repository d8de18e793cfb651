// Driver (our own): the forward kernel of CUTLASS example 77 (77_blackwell_fmha.cu, Blackwell
// FMHA), instantiated as the example's run_fwd_128 does for fp16 with the persistent tile
// scheduler and a causal mask: Q/K/V by TMA into warp-specialized rings, QK and PV by
// tcgen05.mma with the S/P and O accumulators in tensor memory, two softmax warp groups and a
// correction warp group handing tiles to each other through mbarriers (PipelineUmmaAsync,
// PipelineAsync), TMA-store epilogue. The example's host code, reference kernels and other
// head dimensions are left out; the kernel body is CUTLASS's.
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"

#include "collective/fmha_fusion.hpp"
#include "collective/sm100_fmha_fwd_epilogue_tma_warpspecialized.hpp"
#include "collective/sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp"
#include "kernel/fmha_options.hpp"
#include "kernel/fmha_tile_scheduler.hpp"
#include "kernel/sm100_fmha_fwd_kernel_tma_warpspecialized.hpp"

using namespace cute;

using Element = cutlass::half_t;
using ProblemShape = cute::tuple<int, int, int, cute::tuple<cute::tuple<int, int>, int>>;
using StrideQ = cute::tuple<int, _1, cute::tuple<cute::tuple<int, int>, int>>;
using StrideK = cute::tuple<int, _1, cute::tuple<cute::tuple<_0, int>, int>>;
using StrideV = StrideK;
using StrideO = StrideQ;
using StrideLSE = cute::tuple<_1, cute::tuple<cute::tuple<int, int>, int>>;
using TileShape = Shape<_256, _128, _128>;

using Mainloop = cutlass::fmha::collective::Sm100FmhaFwdMainloopTmaWarpspecialized<
    Element, float, float, TileShape, StrideQ, StrideK, StrideV,
    cutlass::fmha::collective::CausalMask<true>>;
using Epilogue = cutlass::fmha::collective::Sm100FmhaFwdEpilogueTmaWarpspecialized<
    cutlass::half_t, float, typename Mainloop::TileShapePV, StrideO, StrideLSE>;
using Kernel = cutlass::fmha::kernel::Sm100FmhaFwdKernelTmaWarpspecialized<
    ProblemShape, Mainloop, Epilogue, cutlass::fmha::kernel::PersistentTileScheduler>;

void* const kFmha = reinterpret_cast<void*>(&cutlass::device_kernel<Kernel>);
