// Peeled first trips of spin loops (model/PeeledPolls.h): the branches that
// enter the loop, then the atomics outside it that repeat a polling atomic
// and decide one of those branches.
#include "model/PeeledPolls.h"

#include <algorithm>

#include "model/Memory.h"
#include "model/Values.h"

namespace fenceline::model {
namespace {

// The conditional branches that decide whether a thread enters the loop: at
// each predecessor of the header outside the loop, its own branch, or, for a
// block that only falls through (a label between the test and the header),
// the branch of the single block before it (a few steps at most).
std::vector<InstId> enteringBranches(const FunctionModel& fn, const SpinLoop& spin) {
  constexpr int kMaxSteps = 4;
  auto conditionalBranch = [&](BlockId b) -> InstId {
    const BasicBlock& block = fn.blocks[b];
    if (block.last <= block.first) return -1;
    const Inst& last = fn.instructions[block.last - 1];
    return last.opcode() == "bra" && last.guard && last.guard->reg >= 0 ? block.last - 1 : -1;
  };
  std::vector<InstId> branches;
  for (BlockId b : fn.blocks[fn.loops[spin.loop].header].predecessors) {
    for (int step = 0; step < kMaxSteps && !spin.containsBlock(fn, b); ++step) {
      if (const InstId branch = conditionalBranch(b); branch >= 0) {
        branches.push_back(branch);
        break;
      }
      if (fn.blocks[b].predecessors.size() != 1) break;
      b = fn.blocks[b].predecessors.front();
    }
  }
  return branches;
}

// The same operation as the poll: opcode and modifiers (cas, exch; type,
// scope and semantics), and every operand after the address equal (the
// compared and the swapped value of a CAS, the exchanged one).
bool repeatsPoll(const FunctionModel& fn, InstId attempt, InstId poll) {
  const Inst &a = fn.instructions[attempt], &p = fn.instructions[poll];
  if (a.opcode() != p.opcode() || !std::ranges::equal(a.syntax->modifiers, p.syntax->modifiers) ||
      a.operands.size() != p.operands.size() || a.effect.address != p.effect.address)
    return false;
  for (int k = a.effect.address + 1; k < static_cast<int>(a.operands.size()); ++k) {
    const auto ca = fn.values->constantOf(attempt, k), cp = fn.values->constantOf(poll, k);
    if (ca || cp) {
      if (ca != cp) return false;
      continue;
    }
    if (!fn.values->sameValue(attempt, k, poll, k)) return false;
  }
  return fn.memory->sameWord(attempt, poll);
}

}  // namespace

std::vector<InstId> findPeeledPolls(const FunctionModel& fn, const SpinLoop& spin, const std::vector<InstId>& atomics) {
  std::vector<InstId> peeled;
  if (spin.loop < 0 || !fn.values || !fn.memory || atomics.empty()) return peeled;
  std::vector<InstId> polls;
  for (InstId p : spin.polls)
    if (std::binary_search(atomics.begin(), atomics.end(), p)) polls.push_back(p);
  if (polls.empty()) return peeled;
  const std::vector<InstId> branches = enteringBranches(fn, spin);
  if (branches.empty()) return peeled;
  for (InstId x : atomics) {
    if (spin.contains(fn, x)) continue;
    if (!std::any_of(polls.begin(), polls.end(), [&](InstId p) { return repeatsPoll(fn, x, p); })) continue;
    const std::vector<InstId> source{x};
    const bool decides = std::any_of(branches.begin(), branches.end(), [&](InstId br) {
      return valueDependsOn(fn, fn.instructions[br].guard->reg, br, source);
    });
    if (decides) peeled.push_back(x);
  }
  return peeled;
}

}  // namespace fenceline::model
