// Cooperative groups: grid-wide sync, tiled partitions with shuffles and
// reductions, coalesced groups. Builds for sm_80 and later.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

extern "C" __global__ void corpus_grid_sum(const int* in, int* partial, int* out, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int sum = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) sum += in[i];
  sum = cg::reduce(warp, sum, cg::plus<int>());
  if (warp.thread_rank() == 0) atomicAdd(&partial[blockIdx.x], sum);
  grid.sync();
  if (grid.thread_rank() == 0) {
    int total = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partial[b];
    *out = total;
  }
}

extern "C" __global__ void corpus_tiles(int* data) {
  cg::thread_block block = cg::this_thread_block();
  auto tile4 = cg::tiled_partition<4>(block);
  auto tile = cg::tiled_partition(block, 8);
  int v = data[block.thread_rank()];
  v += tile4.shfl_down(v, 1);
  v = tile4.any(v > 10) ? v : -v;
  tile.sync();
  cg::coalesced_group active = cg::coalesced_threads();
  if (v > 0) {
    cg::coalesced_group positive = cg::coalesced_threads();
    v += positive.shfl(v, 0) + static_cast<int>(positive.size());
  }
  block.sync();
  data[block.thread_rank()] = v + active.thread_rank();
}
