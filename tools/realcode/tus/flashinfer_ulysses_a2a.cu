// Driver (our own): FlashInfer's Ulysses sequence-parallel all-to-all
// (flashinfer/comm/ulysses_all_to_all.cuh): each rank scatters (MODE 0) or
// gathers (MODE 1) attention heads into its peers' IPC-mapped output buffers,
// between two flag barriers built on vLLM's custom all-reduce signals (the
// second one, and the first in gather mode with aligned peers, fenced). Half
// precision, 8 ranks. Built with -I <flashinfer>/data/include.
#include <cuda_fp16.h>

#include "flashinfer/comm/ulysses_all_to_all.cuh"

namespace uly = flashinfer::comm::ulysses;

void* const kScatter = reinterpret_cast<void*>(&uly::ulysses_a2a_kernel<half, 8, 0>);
void* const kGather = reinterpret_cast<void*>(&uly::ulysses_a2a_kernel<half, 8, 1>);
