// Branch edges: which way a conditional branch goes. A block that ends in a
// guarded `bra` to a label has two edges out, the taken one (to the label)
// and the fall-through (to the next block), and on each the guard predicate
// has a known value. The guarded ranges narrow a thread index by the value
// on the edge into a block; the bulk-group walk follows the issuer's
// predicate along the edge it takes.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// The guarded `bra` to a label that ends `block`; -1 when the block ends otherwise.
InstId conditionalBranch(const FunctionModel& fn, BlockId block);

// The block conditional branch `branch` leads to when its guard predicate
// has `value`: the label's block or the next one.
BlockId branchTarget(const FunctionModel& fn, InstId branch, bool value);

// The outcome of the conditional branch ending `pred` on its edge to `block`.
struct EdgeCondition {
  InstId branch = -1;              // the conditional branch
  ptx::RegisterId predicate = -1;  // its guard predicate, read at `branch`
  bool value = false;              // the predicate's value on the edge
};
// nullopt when `pred` does not end in a conditional branch, when the edge
// is not one of its two, or when both lead to `block` (the predicate is
// then free).
std::optional<EdgeCondition> edgeCondition(const FunctionModel& fn, BlockId pred, BlockId block);

// Every path from the entry to `block` takes the edge from -> to: `to`
// dominates `block`, and `to` is entered only through that edge (its other
// predecessors, back edges of a loop headed by `to`, are dominated by `to`).
// A join where the branch target meets other paths (block 0 skipping a loop
// the other blocks run) is dominated by the target, not by the edge.
bool edgeDominatesBlock(const FunctionModel& fn, BlockId from, BlockId to, BlockId block);

// The blocks each edge of the conditional branch `branch` leads to, without
// entering a block that dominates `home` (around a loop, that is the next
// round of whatever `home` does) and without going on past a block that
// holds an instruction `stop` accepts (a wait of its own on that side):
// reached[v] for the edge on which the guard predicate is v. A block that one
// edge reaches and the other does not is decided by the branch; one that both
// reach is not (a ticket's decision guards only what lies on one side of it:
// shape A, docs/real-code.md).
struct EdgeReach {
  std::vector<char> reached[2];
  bool decides(BlockId block) const { return reached[0][block] != reached[1][block]; }
};
EdgeReach edgeReach(const FunctionModel& fn, InstId branch, BlockId home, const std::function<bool(InstId)>& stop);

}  // namespace fenceline::model
