// A clean kernel: fenceline should report nothing here. Two phases exchange
// data across the whole grid through cooperative_groups::this_grid().sync(),
// whose implementation in the toolkit's headers releases and acquires at gpu
// scope around its arrival counter, and the block-level reduction uses
// cooperative_groups' block sync and warp-tile reduce. (Launch it with
// cudaLaunchCooperativeKernel.)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void two_phase_sum(const float* in, float* partial, float* total, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ float warpSums[32];

  float sum = 0.0f;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) sum += in[i];
  sum = cg::reduce(warp, sum, cg::plus<float>());
  if (warp.thread_rank() == 0) warpSums[warp.meta_group_rank()] = sum;
  block.sync();
  if (block.thread_rank() == 0) {
    float blockSum = 0.0f;
    for (unsigned w = 0; w < warp.meta_group_size(); ++w) blockSum += warpSums[w];
    partial[blockIdx.x] = blockSum;
  }

  grid.sync();  // every block's partial is visible after this

  if (grid.thread_rank() == 0) {
    float result = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) result += partial[b];
    *total = result;
  }
}
