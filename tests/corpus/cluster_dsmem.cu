// Thread block clusters through cooperative groups: distributed shared
// memory with map_shared_rank and cluster.sync(). Builds for sm_90a and sm_120a.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1) corpus_cluster_exchange(int* out) {
  __shared__ int mine[128];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  mine[threadIdx.x] = static_cast<int>(rank * 1000 + threadIdx.x);
  cluster.sync();
  int* theirs = cluster.map_shared_rank(mine, rank ^ 1);
  int v = theirs[threadIdx.x];
  cluster.sync();
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
