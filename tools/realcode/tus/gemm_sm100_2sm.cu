// Driver (our own): the kernel of CUTLASS example 70 (70_blackwell_fp16_gemm.cu), built by the
// sm_100 collective builders exactly as the example configures it: fp16 A (row-major) and B
// (column-major), fp32 C/D, 256x128x64 MMA tile over 2 SMs (tcgen05.mma cta_group::2), 2x2x1
// cluster, builder-chosen schedules, the default cluster-launch-control (CLC) tile scheduler.
// The example's host code and reference kernels are left out; the kernel body is CUTLASS's.
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

using namespace cute;

using ElementA = cutlass::half_t;
using ElementB = cutlass::half_t;
using ElementC = float;
constexpr int kAlignmentA = 8;
constexpr int kAlignmentB = 8;
constexpr int kAlignmentC = 4;
using MmaTileShape = Shape<_256, _128, _64>;
using ClusterShape = Shape<_2, _2, _1>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp, MmaTileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    ElementC, cutlass::layout::ColumnMajor, kAlignmentC,
    ElementC, cutlass::layout::ColumnMajor, kAlignmentC,
    cutlass::epilogue::collective::EpilogueScheduleAuto>::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp,
    ElementA, cutlass::layout::RowMajor, kAlignmentA,
    ElementB, cutlass::layout::ColumnMajor, kAlignmentB,
    float, MmaTileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::collective::KernelScheduleAuto>::CollectiveOp;

using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue, void>;

void* const kGemm = reinterpret_cast<void*>(&cutlass::device_kernel<Kernel>);
