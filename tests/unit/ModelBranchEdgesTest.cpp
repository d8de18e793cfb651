// Branch edges (model/BranchEdges.h) over real nvcc output: the if/else
// diamond of Inputs/model_cfg.cu ends its entry block in `@p bra`, and the
// predicate has opposite values on the two edges out of it.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/BranchEdges.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

TEST(ModelBranchEdges, DiamondBranchHasOneValuePerEdge) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("diamond");
  const InstId branch = conditionalBranch(fn, 0);
  ASSERT_GE(branch, 0) << dump(fn);
  ASSERT_EQ(fn.blocks[0].successors.size(), 2u);
  const BlockId taken = fn.instructions[branch].operands[0].label, fallThrough = 1;
  ASSERT_NE(taken, fallThrough);

  const auto onTaken = edgeCondition(fn, 0, taken), onFallThrough = edgeCondition(fn, 0, fallThrough);
  ASSERT_TRUE(onTaken && onFallThrough);
  EXPECT_EQ(onTaken->branch, branch);
  EXPECT_EQ(onTaken->predicate, fn.instructions[branch].guard->reg);
  EXPECT_EQ(onFallThrough->predicate, onTaken->predicate);
  EXPECT_NE(onTaken->value, onFallThrough->value);
  EXPECT_EQ(onTaken->value, !fn.instructions[branch].guard->negated);

  // branchTarget is the inverse: the value on an edge leads along it.
  EXPECT_EQ(branchTarget(fn, branch, onTaken->value), taken);
  EXPECT_EQ(branchTarget(fn, branch, onFallThrough->value), fallThrough);
}

TEST(ModelBranchEdges, NoConditionOffABranchEdge) {
  FENCELINE_LOAD_PROGRAM(p, "model_cfg");
  const auto& fn = p.fn("diamond");
  const BlockId last = static_cast<BlockId>(fn.blocks.size()) - 1;
  EXPECT_LT(conditionalBranch(fn, 1), 0) << dump(fn);     // `bra.uni`: no guard
  EXPECT_LT(conditionalBranch(fn, last), 0) << dump(fn);  // ends in ret
  EXPECT_FALSE(edgeCondition(fn, last, 0));
  EXPECT_FALSE(edgeCondition(fn, 0, last)) << dump(fn);   // the join is not entered from the branch
}
