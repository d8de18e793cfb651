// Driver (our own), session 10 fresh set: vLLM's cooperative cluster top-k for the DeepSeek
// sparse-attention indexer (csrc/cooperative_topk.cuh of the vllm 0.33.0 sdist): one row per
// thread-block cluster, row slices staged into shared memory by bulk copies completing on
// mbarriers, 4096-bin histograms merged across the cluster through distributed shared memory
// and cluster barriers. TopK 2048 (the launcher's), cluster sizes 4 and 8.
// Built with -I <vllm>/csrc.
#include "cooperative_topk.cuh"

namespace ct = vllm::cooperative;

void* const kCluster4 = reinterpret_cast<void*>(&ct::cooperative_topk_cs4<2048>);
void* const kCluster8 = reinterpret_cast<void*>(&ct::cooperative_topk_cs8<2048>);
