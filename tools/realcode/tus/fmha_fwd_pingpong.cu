// Driver (our own): the FlashAttention-style forward kernel that ships with CUTLASS as
// example 88 (Hopper FMHA): TMA loads of Q/K/V through an mbarrier pipeline, wgmma for QK^T
// and PV, online softmax in registers; ping-pong warp-group schedule, causal mask, half
// precision, 128x128 tiles, head dimension 128. Built with -I examples/88_hopper_fmha.
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"

#include "collective/fmha_fusion.hpp"
#include "kernel/fmha_kernel_builder.hpp"

using namespace cute;

using FmhaStride = cute::tuple<int, _1, cute::tuple<int, int>>;  // (seq, head dim, (batch, heads))
using FmhaPingpong = cutlass::fmha::kernel::FmhaBuilder<
    cutlass::half_t, float, float, Shape<_128, _128, _128>, FmhaStride, FmhaStride, FmhaStride,
    cutlass::fmha::collective::CausalFusion,
    cutlass::gemm::KernelTmaWarpSpecializedPingpong>::Kernel;

void* const kFmhaPingpong = reinterpret_cast<void*>(&cutlass::device_kernel<FmhaPingpong>);
