// Spin-loop recognition (see SpinLoops.h): for each natural loop, walk the
// definitions of each exit branch's predicate backwards inside the loop,
// collecting the polls it depends on and noticing values carried from the
// previous iteration; then check the polled addresses and the loop's writes.
#include "model/SpinLoops.h"

#include <algorithm>
#include <set>

#include "model/Memory.h"
#include "model/Operands.h"
#include "model/Values.h"

namespace fenceline::model {
namespace {

bool isGlobalish(const FunctionModel& fn, InstId i) {
  const MemoryEffect& e = fn.instructions[i].effect;
  Space space = e.space;
  if (fn.values && e.address >= 0) {
    Space narrowed = fn.values->addressSpace(i, e.address);
    if (narrowed != Space::None) space = narrowed;
  }
  return space == Space::Global || space == Space::Generic;
}

// Does definition `d` reach `at` within one iteration of the loop (without
// going around the back edge to the header)? Otherwise its value is carried
// from the previous iteration.
bool reachesWithinIteration(const FunctionModel& fn, const Loop& loop, InstId d, InstId at) {
  BlockId from = fn.blockOf[d], to = fn.blockOf[at];
  if (from == to) return d < at;
  std::vector<char> seen(fn.blocks.size(), 0);
  std::vector<BlockId> work{from};
  seen[from] = 1;
  while (!work.empty()) {
    BlockId b = work.back();
    work.pop_back();
    for (BlockId s : fn.blocks[b].successors) {
      if (s == to) return true;
      if (s == loop.header || seen[s] || !std::binary_search(loop.blocks.begin(), loop.blocks.end(), s)) continue;
      seen[s] = 1;
      work.push_back(s);
    }
  }
  return false;
}

// The conditional branch that decides to take an exit from block `b`: its
// own `@p bra`, or, when `b` only jumps or falls through (nvcc often puts a
// lone `bra.uni EXIT` after the test), the one of its single predecessor
// chain inside the loop. -1 when there is none.
InstId decidingBranch(const FunctionModel& fn, const SpinLoop& spin, BlockId b) {
  for (int steps = 0; steps < 4; ++steps) {
    const BasicBlock& block = fn.blocks[b];
    if (block.last > block.first) {
      const Inst& last = fn.instructions[block.last - 1];
      if (last.opcode() == "bra" && last.guard && last.guard->reg >= 0) return block.last - 1;
      for (InstId i = block.first; i < block.last; ++i)
        if (fn.instructions[i].effect.kind != EffectKind::None || fn.instructions[i].opcode() != "bra") return -1;
    }
    if (block.predecessors.size() != 1 || !spin.containsBlock(fn, block.predecessors[0])) return -1;
    b = block.predecessors[0];
  }
  return -1;
}

// The predicate walk for one exit branch.
struct ExitWalk {
  const FunctionModel& fn;
  const SpinLoop& loop;
  std::set<InstId> polls;
  std::set<InstId> comparisons;
  std::set<InstId> onStack;
  bool carried = false;

  void visit(ValueReg reg, InstId at) {
    if (carried) return;
    std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
    bool inside = false, outside = false;
    for (InstId d : defs) (loop.contains(fn, d) ? inside : outside) = true;
    if (inside && outside) {
      // A rotated loop: the first poll peeled before the loop and the one in
      // the loop write the same register. Otherwise the value is carried from
      // the previous iteration.
      bool samePoll = true;
      for (InstId d : defs)
        samePoll = samePoll && readsGlobalMemory(fn, d) && fn.memory->sameWord(d, defs.front());
      if (!samePoll) {
        carried = true;
        return;
      }
      for (InstId d : defs)
        if (loop.contains(fn, d)) polls.insert(d);
      return;
    }
    for (InstId d : defs) {
      if (!loop.contains(fn, d)) continue;
      if (onStack.count(d) || !reachesWithinIteration(fn, fn.loops[loop.loop], d, at)) {
        carried = true;
        return;
      }
      const Inst& inst = fn.instructions[d];
      if (readsGlobalMemory(fn, d)) {
        polls.insert(d);
        continue;
      }
      const EffectKind kind = inst.effect.kind;
      if (kind != EffectKind::None && kind != EffectKind::CtaBarrier) continue;  // shared/param/local loads
      if (inst.opcode() == "setp") comparisons.insert(d);
      onStack.insert(d);
      for (ValueReg r : registerUse(inst).read) visit(r, d);
      onStack.erase(d);
    }
  }
};

// Does the address register's value change across iterations?
struct AddressWalk {
  const FunctionModel& fn;
  const SpinLoop& loop;
  std::set<InstId> onStack;

  bool variant(ValueReg reg, InstId at) {
    std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
    bool inside = false, outside = false;
    for (InstId d : defs) (loop.contains(fn, d) ? inside : outside) = true;
    if (inside && outside) return true;
    for (InstId d : defs) {
      if (!loop.contains(fn, d)) continue;
      if (onStack.count(d) || !reachesWithinIteration(fn, fn.loops[loop.loop], d, at)) return true;
      onStack.insert(d);
      RegisterUse use = registerUse(fn.instructions[d]);
      bool v = false;
      for (ValueReg r : use.read) v = v || variant(r, d);
      for (ValueReg r : use.addressed) v = v || variant(r, d);
      onStack.erase(d);
      if (v) return true;
    }
    return false;
  }
};

}  // namespace

bool readsGlobalMemory(const FunctionModel& fn, InstId i) {
  const MemoryEffect& e = fn.instructions[i].effect;
  if (e.kind != EffectKind::Load && e.kind != EffectKind::ReadModifyWrite) return false;
  if (!e.reads || fn.instructions[i].hasModifier("nc")) return false;
  return isGlobalish(fn, i);
}

bool writesGlobalMemory(const FunctionModel& fn, InstId i) {
  const MemoryEffect& e = fn.instructions[i].effect;
  if (e.kind != EffectKind::Store && e.kind != EffectKind::ReadModifyWrite) return false;
  return e.writes && isGlobalish(fn, i);
}

bool SpinLoop::containsBlock(const FunctionModel& fn, BlockId block) const {
  const auto& blocks = fn.loops[loop].blocks;
  return std::binary_search(blocks.begin(), blocks.end(), block);
}

bool SpinLoop::contains(const FunctionModel& fn, InstId inst) const {
  return inst >= 0 && containsBlock(fn, fn.blockOf[inst]);
}

std::vector<SpinLoop> findSpinLoops(const FunctionModel& fn) {
  if (!fn.values || !fn.memory) return {};
  std::vector<SpinLoop> spins;
  for (int32_t l = 0; l < static_cast<int32_t>(fn.loops.size()); ++l) {
    SpinLoop spin;
    spin.loop = l;
    std::set<InstId> polls, comparisons;
    for (BlockId b : fn.loops[l].blocks) {
      const BasicBlock& block = fn.blocks[b];
      if (block.last <= block.first) continue;
      bool exits = false;
      for (BlockId s : block.successors)
        if (!spin.containsBlock(fn, s)) exits = true;
      if (!exits) continue;
      InstId branch = decidingBranch(fn, spin, b);
      if (branch < 0) continue;
      const Inst& inst = fn.instructions[branch];
      ExitWalk walk{fn, spin, {}, {}, {}, false};
      walk.visit(inst.guard->reg, branch);
      if (walk.carried || walk.polls.empty()) continue;
      polls.insert(walk.polls.begin(), walk.polls.end());
      comparisons.insert(walk.comparisons.begin(), walk.comparisons.end());
      spin.exitBranches.push_back(branch);
    }
    if (polls.empty()) continue;
    // The polled address must not change across iterations.
    for (auto it = polls.begin(); it != polls.end();) {
      const MemoryEffect& e = fn.instructions[*it].effect;
      const ptx::Operand& address = fn.instructions[*it].operands[e.address];
      AddressWalk walk{fn, spin, {}};
      bool variant = address.base.kind == ptx::Operand::Kind::Register && walk.variant(address.base.reg, *it);
      it = variant ? polls.erase(it) : std::next(it);
    }
    if (polls.empty()) continue;
    // No global writes other than through a polling atomic.
    bool writes = false;
    for (BlockId b : fn.loops[l].blocks)
      for (InstId i = fn.blocks[b].first; i < fn.blocks[b].last && !writes; ++i)
        if (writesGlobalMemory(fn, i) && !polls.count(i)) writes = true;
    if (writes) continue;
    spin.polls.assign(polls.begin(), polls.end());
    spin.comparisons.assign(comparisons.begin(), comparisons.end());
    spins.push_back(std::move(spin));
  }
  return spins;
}

bool valueDependsOn(const FunctionModel& fn, ValueReg reg, InstId at, const std::vector<InstId>& sources) {
  if (!fn.values) return false;
  std::set<std::pair<ValueReg, InstId>> seen;
  std::vector<std::pair<ValueReg, InstId>> work{{reg, at}};
  while (!work.empty()) {
    auto [r, where] = work.back();
    work.pop_back();
    if (!seen.insert({r, where}).second || seen.size() > 4096) continue;
    for (InstId d : fn.values->reachingDefinitions(r, where)) {
      if (std::find(sources.begin(), sources.end(), d) != sources.end()) return true;
      const EffectKind kind = fn.instructions[d].effect.kind;
      if (kind != EffectKind::None && kind != EffectKind::CtaBarrier) continue;
      for (ValueReg next : registerUse(fn.instructions[d]).read) work.push_back({next, d});
    }
  }
  return false;
}

}  // namespace fenceline::model
