// Branch edges (see BranchEdges.h). The branch is taken when its predicate
// differs from the guard's negation: `@p bra` on p, `@!p bra` on !p.
#include "model/BranchEdges.h"

namespace fenceline::model {

InstId conditionalBranch(const FunctionModel& fn, BlockId block) {
  const BasicBlock& b = fn.blocks[block];
  if (b.last <= b.first) return -1;
  const InstId branch = b.last - 1;
  const Inst& br = fn.instructions[branch];
  if (br.opcode() != "bra" || !br.guard || br.operands.empty() || br.operands[0].kind != ptx::Operand::Kind::Label)
    return -1;
  return branch;
}

BlockId branchTarget(const FunctionModel& fn, InstId branch, bool value) {
  const Inst& br = fn.instructions[branch];
  const bool taken = value != br.guard->negated;
  return taken ? br.operands[0].label : br.block + 1;
}

std::optional<EdgeCondition> edgeCondition(const FunctionModel& fn, BlockId pred, BlockId block) {
  const InstId branch = conditionalBranch(fn, pred);
  if (branch < 0) return std::nullopt;
  const Inst& br = fn.instructions[branch];
  const bool taken = br.operands[0].label == block;
  const bool fallsThrough = block == pred + 1;
  if (taken == fallsThrough) return std::nullopt;  // neither edge, or both
  return EdgeCondition{branch, br.guard->reg, taken != br.guard->negated};
}

bool edgeDominatesBlock(const FunctionModel& fn, BlockId from, BlockId to, BlockId block) {
  if (!fn.dominates(to, block)) return false;
  for (BlockId p : fn.blocks[to].predecessors)
    if (p != from && !fn.dominates(to, p)) return false;
  return true;
}

EdgeReach edgeReach(const FunctionModel& fn, InstId branch, BlockId home, const std::function<bool(InstId)>& stop) {
  EdgeReach reach;
  for (bool value : {false, true}) {
    std::vector<char>& seen = reach.reached[value ? 1 : 0];
    seen.assign(fn.blocks.size(), 0);
    std::vector<BlockId> work{branchTarget(fn, branch, value)};
    while (!work.empty()) {
      const BlockId b = work.back();
      work.pop_back();
      if (b < 0 || b >= static_cast<BlockId>(fn.blocks.size()) || seen[b] || fn.dominates(b, home)) continue;
      seen[b] = 1;
      bool stops = false;
      for (InstId i = fn.blocks[b].first; i < fn.blocks[b].last && !stops; ++i) stops = stop(i);
      if (stops) continue;
      for (BlockId s : fn.blocks[b].successors) work.push_back(s);
    }
  }
  return reach;
}

}  // namespace fenceline::model
