// Driver (our own): the kernel of CUTLASS example 57 (57_hopper_grouped_gemm.cu), the grouped
// GEMM over an array of problem shapes and pointers, configured exactly as the example's
// cooperative configuration: FP8 A (e4m3, row-major) and B (e5m2, column-major), fp16 C/D,
// 256x128x128 tile, 1x2 cluster, KernelPtrArrayTmaWarpSpecializedCooperativeFP8FastAccum and
// the PtrArrayTmaWarpSpecializedCooperative epilogue. Each new group's TMA descriptors are
// rewritten in the kernel (tensormap.replace in shared memory, copied to global memory with a
// release, fenced with fence.proxy.tensormap before use). The example's host code, ping-pong
// configuration and reference kernels are left out; the kernel body is CUTLASS's.
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/epilogue/thread/linear_combination.h"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/group_array_problem_shape.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

using namespace cute;

using ProblemShape = cutlass::gemm::GroupProblemShape<Shape<int, int, int>>;
using ElementA = cutlass::float_e4m3_t;
using ElementB = cutlass::float_e5m2_t;
using ElementC = cutlass::half_t;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::ColumnMajor;
constexpr int kAlignmentA = 16;
constexpr int kAlignmentB = 16;
constexpr int kAlignmentC = 8;
using TileShape = Shape<_256, _128, _128>;
using ClusterShape = Shape<_1, _2, _1>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    ElementC, LayoutC*, kAlignmentC, ElementC, LayoutC*, kAlignmentC,
    cutlass::epilogue::PtrArrayTmaWarpSpecializedCooperative,
    cutlass::epilogue::fusion::LinearCombination<ElementC, float>>::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    ElementA, LayoutA*, kAlignmentA, ElementB, LayoutB*, kAlignmentB,
    float, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperativeFP8FastAccum>::CollectiveOp;

using Kernel = cutlass::gemm::kernel::GemmUniversal<ProblemShape, Mainloop, Epilogue>;

void* const kGemm = reinterpret_cast<void*>(&cutlass::device_kernel<Kernel>);
