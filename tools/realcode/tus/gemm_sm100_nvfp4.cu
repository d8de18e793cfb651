// Driver (our own): the kernel of CUTLASS example 72a (72a_blackwell_nvfp4_bf16_gemm.cu), built
// by the sm_100 block-scaled collective builders as the example configures it: NVFP4 A and B
// (e2m1 data, one e4m3 scale factor per 16 elements, the scales loaded by TMA and copied to
// tensor memory with tcgen05.cp), bf16 C/D, 256x256x256 MMA tile over 2 SMs, 2x4x1 cluster,
// builder-chosen schedules, the default CLC tile scheduler. The example's host code and
// reference kernels are left out; the kernel body is CUTLASS's.
#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

using namespace cute;

using ElementA = cutlass::nv_float4_t<cutlass::float_e2m1_t>;
using ElementB = cutlass::nv_float4_t<cutlass::float_e2m1_t>;
using ElementC = cutlass::bfloat16_t;
using ElementD = cutlass::bfloat16_t;
constexpr int kAlignmentAB = 32;
constexpr int kAlignmentCD = 8;
using MmaTileShape = Shape<_256, _256, _256>;
using ClusterShape = Shape<_2, _4, _1>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm100, cutlass::arch::OpClassBlockScaledTensorOp, MmaTileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    ElementC, cutlass::layout::RowMajor, kAlignmentCD,
    ElementD, cutlass::layout::RowMajor, kAlignmentCD,
    cutlass::epilogue::collective::EpilogueScheduleAuto>::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm100, cutlass::arch::OpClassBlockScaledTensorOp,
    ElementA, cutlass::layout::RowMajor, kAlignmentAB,
    ElementB, cutlass::layout::ColumnMajor, kAlignmentAB,
    float, MmaTileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::collective::KernelScheduleAuto>::CollectiveOp;

using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue, void>;

void* const kGemm = reinterpret_cast<void*>(&cutlass::device_kernel<Kernel>);
