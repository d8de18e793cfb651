// Driver (our own): the FP8 GEMM of CUTLASS example 54 (Hopper, e4m3 A/B/C/D, float
// accumulation), as configured there: KernelTmaWarpSpecializedCooperative mainloop, 128x128x128
// tiles, 1x2 cluster, cooperative TMA epilogue fused with per-row bias, ReLU, scaling, an
// auxiliary output and an absolute-maximum (amax) reduction. Only the kernel is instantiated.
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/epilogue/dispatch_policy.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

using namespace cute;

using Fp8 = cutlass::float_e4m3_t;
constexpr int kAlignment = 16;  // elements of one byte: 16-byte TMA alignment
using TileShape = Shape<_128, _128, _128>;
using ClusterShape = Shape<_1, _2, _1>;

using Fusion = cutlass::epilogue::fusion::ScaledLinCombPerRowBiasEltActAmaxAux<
    cutlass::layout::ColumnMajor, cutlass::epilogue::thread::ReLU, Fp8, float, Fp8, float, float,
    Fp8>;

using Epilogue = cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    Fp8, cutlass::layout::ColumnMajor, kAlignment, Fp8, cutlass::layout::ColumnMajor, kAlignment,
    cutlass::epilogue::TmaWarpSpecializedCooperative, Fusion>::CollectiveOp;

using Mainloop = cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Fp8, cutlass::layout::RowMajor, kAlignment, Fp8, cutlass::layout::ColumnMajor, kAlignment,
    float, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;

using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue>;

// Taking the kernel's address from host code makes nvcc emit its PTX.
void* const kFp8Amax = reinterpret_cast<void*>(&cutlass::device_kernel<Kernel>);
