// Driver (our own): FlashInfer's PCIe IPC collectives (pip flashinfer-python,
// flashinfer/comm/pcie_ipc_*.cuh): all-gather by flat push and by recursive
// doubling, reduce-scatter by flat cyclic push, and the one-shot and
// reduce-scatter + all-gather all-reduce. Peers write each other's staging
// buffers through IPC pointers (volatile or plain stores) and raise per-block
// flags with st.release.sys; waiters poll with ld.acquire.sys. Half precision,
// 8 ranks, rank 0. Built with -I <flashinfer>/data/include.
#include "flashinfer/comm/pcie_ipc_all_gather.cuh"
#include "flashinfer/comm/pcie_ipc_all_reduce.cuh"
#include "flashinfer/comm/pcie_ipc_reduce_scatter.cuh"

namespace pcie = flashinfer::comm::pcie_ipc;

void* const kGatherFlat = reinterpret_cast<void*>(&pcie::all_gather::detail::flat_push_kernel<8, 0>);
void* const kGatherDoubling = reinterpret_cast<void*>(&pcie::all_gather::detail::recursive_doubling_kernel<8, 0>);
void* const kScatterFlat = reinterpret_cast<void*>(&pcie::reduce_scatter::detail::flat_cyclic_kernel<half, 8, 0>);
void* const kReduceOneShot = reinterpret_cast<void*>(&pcie::push_oneshot_param_kernel<half, 8, false, false>);
void* const kReduceRsag = reinterpret_cast<void*>(&pcie::ipc_rsag_push_param_kernel<half, 8, false>);
