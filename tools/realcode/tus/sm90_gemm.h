// Our own shim that names one CUTLASS 3.x Hopper GEMM kernel per configuration, so each
// driver translation unit instantiates exactly the kernel it is about and nothing else
// (the CUTLASS examples instantiate a dozen kernels plus host reference code each).
// Half-precision A/B/C/D, float accumulation, TMA-friendly 16-byte alignment.
#pragma once

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/gemm/kernel/tile_scheduler.hpp"

namespace realcode {

using namespace cute;

template <class TileShape, class ClusterShape, class MainloopSchedule, class EpilogueSchedule,
          class TileScheduler = cutlass::gemm::PersistentScheduler>
struct Sm90Gemm {
  using Element = cutlass::half_t;
  static constexpr int kAlignment = 16 / sizeof(Element);

  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float,
      Element, cutlass::layout::ColumnMajor, kAlignment,
      Element, cutlass::layout::ColumnMajor, kAlignment,
      EpilogueSchedule>::CollectiveOp;

  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
      Element, cutlass::layout::RowMajor, kAlignment,
      Element, cutlass::layout::ColumnMajor, kAlignment,
      float, TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<
          static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      MainloopSchedule>::CollectiveOp;

  using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop,
                                                      Epilogue, TileScheduler>;
};

}  // namespace realcode

// Taking a kernel's address from host code makes nvcc emit its PTX.
#define REALCODE_EMIT_KERNEL(name, KernelType) \
  void* const name = reinterpret_cast<void*>(&cutlass::device_kernel<KernelType>)
