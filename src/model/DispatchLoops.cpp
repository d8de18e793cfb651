// Dispatch loops of interpreters (see DispatchLoops.h).
#include "model/DispatchLoops.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "model/BranchEdges.h"
#include "model/Paths.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

bool inLoop(const Loop& loop, BlockId block) { return std::binary_search(loop.blocks.begin(), loop.blocks.end(), block); }

// The predicate of `branch` is computed, through register computations, from
// a value loaded from memory inside `loop` (not a parameter, not constant
// memory): data read on each trip.
bool decidedByTripData(const FunctionModel& fn, const Loop& loop, InstId branch) {
  constexpr int kMaxDefinitions = 64;
  std::vector<std::pair<ValueReg, InstId>> work = {{fn.instructions[branch].guard->reg, branch}};
  std::set<InstId> seen;
  while (!work.empty() && static_cast<int>(seen.size()) < kMaxDefinitions) {
    const auto [reg, at] = work.back();
    work.pop_back();
    for (InstId def : fn.values->reachingDefinitions(reg, at)) {
      if (!seen.insert(def).second) continue;
      const Inst& inst = fn.instructions[def];
      if (inst.effect.kind == EffectKind::Load) {
        if (inLoop(loop, fn.blockOf[def]) && inst.effect.space != Space::Param && inst.effect.space != Space::Const)
          return true;
        continue;
      }
      if (inst.effect.kind != EffectKind::None) continue;
      for (size_t k = 1; k < inst.operands.size(); ++k)
        if (inst.operands[k].kind == ptx::Operand::Kind::Register) work.emplace_back(inst.operands[k].reg, def);
    }
  }
  return false;
}

// A conditional branch of `loop` decided by trip data whose two edges lead to
// blocks dominating `a` and `b`, one each.
bool separatedByDispatch(const FunctionModel& fn, const Loop& loop, BlockId a, BlockId b) {
  for (BlockId block : loop.blocks) {
    const InstId branch = conditionalBranch(fn, block);
    if (branch < 0 || fn.instructions[branch].guard->reg < 0) continue;
    const BlockId taken = branchTarget(fn, branch, true), other = branchTarget(fn, branch, false);
    if (taken == other || taken < 0 || other < 0 || !inLoop(loop, taken) || !inLoop(loop, other)) continue;
    const bool apart = (fn.dominates(taken, a) && fn.dominates(other, b)) ||
                       (fn.dominates(taken, b) && fn.dominates(other, a));
    if (apart && decidedByTripData(fn, loop, branch)) return true;
  }
  return false;
}

}  // namespace

bool reachesOnlyThroughDispatch(const FunctionModel& fn, InstId from, InstId to) {
  const BlockId a = fn.blockOf[from], b = fn.blockOf[to];
  for (const Loop& loop : fn.loops) {
    if (!inLoop(loop, a) || !inLoop(loop, b)) continue;
    const InstId header = fn.blocks[loop.header].first;
    if (from == header || to == header) continue;
    auto isTo = [&](InstId i) { return i == to; };
    auto isHeader = [&](InstId i) { return i == header; };
    if (findReachable(fn, from, isTo, isHeader, {to}, {header}) >= 0) continue;  // within one trip
    if (separatedByDispatch(fn, loop, a, b)) return true;
  }
  return false;
}

}  // namespace fenceline::model
