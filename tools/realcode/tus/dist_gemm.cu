// Driver (our own): CUTLASS's experimental distributed (tensor-parallel) GEMM, the code behind
// example 65: the ping-pong GEMM wrapped by DistributedGemmKernelWrapper, which waits on an
// arrival flag written by a peer GPU before its main loop and signals the next peer, and the
// any-to-any full_barrier_kernel that GPUs run between iterations (atomics on peer pointers,
// uncached polling). Two GPUs, an all-gather schedule rotating A.
#include "sm90_gemm.h"

#include "cutlass/experimental/distributed/kernel/dist_gemm_kernel_wrapper.hpp"
#include "cutlass/experimental/distributed/kernel/full_barrier.hpp"
#include "cutlass/experimental/distributed/schedules/dist_gemm_1d_schedules.hpp"

using LocalGemm = realcode::Sm90Gemm<
    cute::Shape<cute::_128, cute::_128, cute::_64>, cute::Shape<cute::_1, cute::_1, cute::_1>,
    cutlass::gemm::KernelTmaWarpSpecializedPingpong, cutlass::epilogue::TmaWarpSpecialized>;
using TwoGpus = cute::Int<2>;
using DistGemm = cutlass::distributed::kernel::DistributedGemmKernelWrapper<
    LocalGemm::Kernel, cutlass::distributed::schedules::AllGather1D_TilingCD_RotatingA<TwoGpus>>;

REALCODE_EMIT_KERNEL(kDistGemm, DistGemm);
void* const kFullBarrier = reinterpret_cast<void*>(
    &cutlass::distributed::kernel::full_barrier_kernel<2, uint32_t, 2, uint32_t>);
