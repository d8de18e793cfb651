// Driver (our own): the FP8 GEMM with blockwise scaling of CUTLASS example 67 (Hopper, e4m3 A/B,
// float C/D, one float scale per 128x128 block of A and B applied during accumulation), as
// configured there: KernelTmaWarpSpecializedCooperativeFP8Blockwise mainloop (the scale factors
// travel through shared memory next to the operand stages), 128x128x128 tiles, 1x2 cluster,
// cooperative TMA epilogue with bias, ReLU, scaling, auxiliary output and amax. Only the kernel
// is instantiated.
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "cutlass/detail/blockwise_scale_layout.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/epilogue/dispatch_policy.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

using namespace cute;

using Fp8 = cutlass::float_e4m3_t;
constexpr int kAlignmentAB = 16;  // one-byte elements: 16-byte TMA alignment
constexpr int kAlignmentCD = 4;   // float
using TileShape = Shape<_128, _128, _128>;
using ClusterShape = Shape<_1, _2, _1>;

using ScaleConfig = decltype(cutlass::detail::sm90_trivial_blockwise_scale_config(TileShape{}));
using LayoutSFA = decltype(ScaleConfig::deduce_layoutSFA());
using LayoutSFB = decltype(ScaleConfig::deduce_layoutSFB());

using Fusion = cutlass::epilogue::fusion::ScaledLinCombPerRowBiasEltActAmaxAux<
    cutlass::layout::ColumnMajor, cutlass::epilogue::thread::ReLU, float, float, float, float,
    float, float>;

using Epilogue = cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    float, cutlass::layout::ColumnMajor, kAlignmentCD, float, cutlass::layout::ColumnMajor,
    kAlignmentCD, cutlass::epilogue::TmaWarpSpecializedCooperative, Fusion>::CollectiveOp;

using Mainloop = cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Fp8, cute::tuple<cutlass::layout::RowMajor, LayoutSFA>, kAlignmentAB,
    Fp8, cute::tuple<cutlass::layout::ColumnMajor, LayoutSFB>, kAlignmentAB,
    float, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8Blockwise>::CollectiveOp;

using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue>;

// Taking the kernel's address from host code makes nvcc emit its PTX.
void* const kFp8Blockwise = reinterpret_cast<void*>(&cutlass::device_kernel<Kernel>);
