// The range of a thread index at one instruction, narrowed by the branches
// that guard it. The value analysis gives %tid.x one range for the whole
// function ([0, 159] with .maxntid 160); code inside `if (warp != 4)` runs
// only for t in [0, 127]. Warp-specialized kernels index their buffers by the
// thread index inside such role branches, so the memory analysis narrows the
// thread-index terms of an address by the conditions on the edges that every
// path to the access takes: walking up the dominator tree, each block with a
// single predecessor that ends in a conditional branch contributes that
// branch's outcome. Conditions are `setp` comparisons against a constant of a
// value that grows with the index: the index itself (plus a constant),
// index >> k, index / c, or index & -2^k (nvcc's `tid / 32 == c` is
// `(tid & -32) == 32 * c`).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "model/Program.h"

namespace fenceline::model {

// `range` narrowed by the guards of `at` for the special register `name`
// (%tid.x, %tid.y, %tid.z, %laneid); `range` itself when nothing narrows it.
std::pair<int64_t, int64_t> guardedRange(const FunctionModel& fn, InstId at, std::string_view name,
                                         std::pair<int64_t, int64_t> range);

// A term of the value analysis ("def:<inst>") that is a warp index read back
// from a shuffle: shfl.sync.idx from lane 0 of tid / 32 (or tid >> k, k >= 5;
// CUTLASS's canonical_warp_idx_sync). It holds one value per thread for the
// whole launch, so the role branches that compare it (`warp_idx < 2`,
// `== 2`, ..., or a value derived from it plus a constant) narrow it exactly
// as they narrow %tid.x (issue 33, shape C). guardedRange accepts its name.
bool isWarpIndexTerm(const FunctionModel& fn, std::string_view name);

// The same for code at the start of `block`: the conditions on the edges
// every path to it takes, without any instruction's own guard.
std::pair<int64_t, int64_t> guardedRangeAtBlock(const FunctionModel& fn, BlockId block, std::string_view name,
                                                std::pair<int64_t, int64_t> range);

}  // namespace fenceline::model
