// Branches a poll decides on its own trip (see TripDecidedBranches.h): the
// conditions on the edges into the spin loop, an implication read back
// through predicate definitions, and a forward walk that follows only the
// decided side of such a branch until it passes the predicate's definition.
#include "model/TripDecidedBranches.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "model/BranchEdges.h"
#include "model/EdgeFacts.h"
#include "model/Limits.h"
#include "model/Paths.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

// A condition on the way into the spin loop: `reg` has `value` at `at`.
struct EntryCondition {
  ValueReg reg = -1;
  bool value = false;
  InstId at = -1;
  InstId start = -1;  // the first instruction past the edge
};

// An edge into the spin loop from outside: its nearest condition (climbing
// through blocks with one predecessor and one successor), when it has one,
// and every fact the edges up its single-predecessor chain give (EdgeFacts.h).
struct Entry {
  std::optional<EntryCondition> condition;
  std::vector<PredicateFact> facts;
};

std::vector<Entry> entries(const FunctionModel& fn, const SpinLoop& spin, const EdgeFacts& edgeFacts) {
  if (spin.loop < 0) return {};
  const Loop& loop = fn.loops[spin.loop];
  auto inLoop = [&](BlockId b) { return std::find(loop.blocks.begin(), loop.blocks.end(), b) != loop.blocks.end(); };
  std::vector<Entry> found;
  for (BlockId p : fn.blocks[loop.header].predecessors) {
    if (inLoop(p)) continue;
    Entry entry;
    entry.facts = edgeFacts.onEdgeChain(p, loop.header);
    BlockId from = p, to = loop.header;
    std::optional<EdgeCondition> edge;
    for (int step = 0; step < 4 && !edge; ++step) {
      edge = edgeCondition(fn, from, to);
      if (edge) break;
      if (fn.blocks[from].predecessors.size() != 1 || fn.blocks[from].successors.size() != 1) break;
      to = from;
      from = fn.blocks[from].predecessors.front();
    }
    if (edge && edge->predicate >= 0)
      entry.condition = EntryCondition{edge->predicate, edge->value, edge->branch, fn.blocks[to].first};
    found.push_back(std::move(entry));
  }
  return found;
}

// Whether `reg == value` at `use` implies `target == want` at the same point,
// for a target predicate with the one definition `def`.
class Implication {
 public:
  Implication(const FunctionModel& fn, ValueReg target, bool want, InstId def)
      : fn_(fn), target_(target), want_(want), def_(def) {
    // The first instructions past the edges where the target has `want`.
    for (InstId br : branchesOn(fn, target)) {
      const BlockId to = branchTarget(fn, br, want);
      if (to >= 0 && fn.blocks[to].predecessors.size() == 1) onWantedEdge_.push_back(fn.blocks[to].first);
    }
    std::sort(onWantedEdge_.begin(), onWantedEdge_.end());
  }

  // For a predicate, `value` is its value; for an integer register, whether
  // it is nonzero.
  bool implies(ValueReg reg, bool value, InstId use, int depth = 0) {
    if (depth > 8) return false;
    // Session 28 (cuSOLVER's getrf_wo_pivot, issue 34 shape P3): where the
    // target has the other value, the condition is a constant of another
    // value (the skip path's constants flow into the spin's entry test).
    if (depth == 0) {
      const std::optional<int64_t> other = valueWhenNotWanted(reg, use, 0);
      if (other && (*other != 0) != value) return true;
    }
    const std::vector<InstId> defs = fn_.values->reachingDefinitions(reg, use);
    if (defs.empty()) return false;
    for (InstId d : defs) {
      poll();
      if (d == def_) {
        if (reg != target_ || value != want_) return false;
        continue;
      }
      const Inst& in = fn_.instructions[d];
      const auto& ops = in.operands;
      if (in.opcode() == "mov" && ops.size() == 2 && ops[1].kind == ptx::Operand::Kind::Integer &&
          (ops[1].intValue != 0) != value)
        continue;  // this definition never gives the value
      if (passesDefinition(d, reg, use)) return false;
      if (runsOnWantedTrips(d)) continue;
      if (!impliedByOperands(in, value, d, depth)) return false;
    }
    return true;
  }

  static std::vector<InstId> branchesOn(const FunctionModel& fn, ValueReg reg) {
    std::vector<InstId> found;
    for (BlockId b = 0; b < static_cast<BlockId>(fn.blocks.size()); ++b) {
      const InstId br = conditionalBranch(fn, b);
      if (br >= 0 && fn.instructions[br].guard->reg == reg) found.push_back(br);
    }
    return found;
  }

 private:
  bool impliedByOperands(const Inst& in, bool value, InstId d, int depth) {
    const auto& ops = in.operands;
    auto reg = [&](size_t k) -> ValueReg {
      return k < ops.size() && ops[k].kind == ptx::Operand::Kind::Register && !ops[k].negated ? ops[k].reg : -1;
    };
    const std::string_view op = in.opcode();
    if (op == "mov" && ops.size() == 2 && reg(1) >= 0) return implies(reg(1), value, d, depth + 1);
    // A comparison with 0 (`setp.eq.s16 %p, %rs, 0`): the value says whether the register is 0.
    if (op == "setp" && ops.size() == 3 && reg(0) >= 0 && (in.hasModifier("eq") || in.hasModifier("ne"))) {
      const bool eq = in.hasModifier("eq");
      const auto zero = [&](size_t k) { return ops[k].kind == ptx::Operand::Kind::Integer && ops[k].intValue == 0; };
      const ValueReg r = zero(2) ? reg(1) : zero(1) ? reg(2) : -1;
      return r >= 0 && implies(r, eq ? !value : value, d, depth + 1);
    }
    // `or` of integers is nonzero when either operand is, like or.pred; a
    // bitwise `and` or `not` of integers is no such test.
    const bool pred = in.hasModifier("pred");
    if (pred && op == "not" && ops.size() == 2 && reg(1) >= 0) return implies(reg(1), !value, d, depth + 1);
    if ((op == "or" || (pred && op == "and")) && ops.size() == 3 && reg(1) >= 0 && reg(2) >= 0) {
      // One operand holds the value, which one unknown (or true, and false): each must
      // imply; both hold it (or false, and true): either is enough.
      const bool both = (op == "or") == value;
      const bool first = implies(reg(1), value, d, depth + 1);
      if (both && !first) return false;
      if (!both && first) return true;
      return implies(reg(2), value, d, depth + 1);
    }
    return false;
  }

  // The value of `reg` at `use` on the paths where the target does not have
  // the wanted value, when every definition that reaches `use` on such a path
  // gives the same constant: definitions that run only past an edge where
  // the target has the wanted value are left out (the loads of the flags
  // under `!p`), the others are read back through integer and predicate
  // arithmetic down to `mov` of constants. nullopt when anything else.
  std::optional<int64_t> valueWhenNotWanted(ValueReg reg, InstId use, int depth) {
    if (depth > 12) return std::nullopt;
    std::optional<int64_t> value;
    for (InstId d : fn_.values->reachingDefinitions(reg, use)) {
      poll();
      if (d == def_) return std::nullopt;
      if (runsOnlyPastWantedEdge(d, use)) continue;
      const std::optional<int64_t> v = definedValue(d, depth);
      if (!v || (value && *value != *v)) return std::nullopt;
      value = v;
    }
    return value;
  }

  std::optional<int64_t> definedValue(InstId d, int depth) {
    const Inst& in = fn_.instructions[d];
    if (in.guard) return std::nullopt;
    const auto& ops = in.operands;
    const std::string_view op = in.opcode();
    const bool pred = in.hasModifier("pred");
    const bool wide = in.hasModifier("b64") || in.hasModifier("u64") || in.hasModifier("s64");
    if (!pred && !wide && !in.hasModifier("b32") && !in.hasModifier("u32") && !in.hasModifier("s32")) return std::nullopt;
    const uint64_t mask = pred ? 1 : wide ? ~uint64_t(0) : 0xffffffffull;
    auto operand = [&](size_t k) -> std::optional<int64_t> {
      if (k >= ops.size()) return std::nullopt;
      if (ops[k].kind == ptx::Operand::Kind::Integer) return ops[k].intValue;
      if (ops[k].kind != ptx::Operand::Kind::Register) return std::nullopt;
      std::optional<int64_t> v = valueWhenNotWanted(ops[k].reg, d, depth + 1);
      if (v && ops[k].negated) v = *v == 0 ? 1 : 0;
      return v;
    };
    auto masked = [&](uint64_t v) { return std::optional<int64_t>(int64_t(v & mask)); };
    if (op == "mov" && ops.size() == 2) {
      const std::optional<int64_t> v = operand(1);
      return v ? masked(uint64_t(*v)) : std::nullopt;
    }
    if (op == "not" && pred && ops.size() == 2) {
      const std::optional<int64_t> v = operand(1);
      return v ? std::optional<int64_t>(*v == 0 ? 1 : 0) : std::nullopt;
    }
    if (op == "setp" && ops.size() == 3 && (in.hasModifier("eq") || in.hasModifier("ne"))) {
      const std::optional<int64_t> a = operand(1), b = operand(2);
      if (!a || !b) return std::nullopt;
      const bool equal = (uint64_t(*a) & mask) == (uint64_t(*b) & mask);
      return in.hasModifier("eq") == equal ? 1 : 0;
    }
    if (ops.size() != 3) return std::nullopt;
    const bool logicalShift = op == "shr" && !in.hasModifier("s32") && !in.hasModifier("s64");
    if (op != "and" && op != "or" && op != "xor" && op != "shl" && !logicalShift) return std::nullopt;
    const std::optional<int64_t> a = operand(1), b = operand(2);
    if (!a || !b) return std::nullopt;
    const uint64_t x = uint64_t(*a) & mask, y = uint64_t(*b);
    if (op == "and") return masked(x & y);
    if (op == "or") return masked(x | y);
    if (op == "xor") return masked(x ^ y);
    if (y >= 64) return masked(0);
    return masked(op == "shl" ? x << y : x >> y);
  }

  // `d` runs only past an edge of a branch on the target where it has the
  // wanted value, and from that branch no path meets the target's definition
  // before `use` (the target keeps that value down to `use`).
  bool runsOnlyPastWantedEdge(InstId d, InstId use) {
    auto isDef = [&](InstId i) { return i == def_; };
    auto isUse = [&](InstId i) { return i == use; };
    for (InstId br : branchesOn(fn_, target_)) {
      const BlockId to = branchTarget(fn_, br, want_);
      if (to < 0 || !edgeDominatesBlock(fn_, fn_.blockOf[br], to, fn_.blockOf[d])) continue;
      if (!fn_.dominatesInst(def_, br) || findReachable(fn_, br, isDef, isUse) >= 0) continue;
      return true;
    }
    return false;
  }

  // A path from definition `d` of `reg` to `use` passes the target's
  // definition before `reg` is defined again: the target may change on the way.
  bool passesDefinition(InstId d, ValueReg reg, InstId use) {
    const std::vector<InstId>& redefs = fn_.values->definitions(reg);
    auto isDef = [&](InstId i) { return i == def_; };
    auto isUse = [&](InstId i) { return i == use; };
    auto redefines = [&](InstId i) { return std::find(redefs.begin(), redefs.end(), i) != redefs.end(); };
    return findReachable(fn_, d, isDef, redefines) >= 0 && findReachable(fn_, def_, isUse, redefines) >= 0;
  }

  // Every path from the target's definition to `d` takes an edge on which the
  // target has the wanted value: `d` runs only on such trips.
  bool runsOnWantedTrips(InstId d) {
    if (onWantedEdge_.empty()) return false;
    auto onEdge = [&](InstId i) { return std::binary_search(onWantedEdge_.begin(), onWantedEdge_.end(), i); };
    return reachable(fn_, def_, d) && everyPathPasses(fn_, def_, d, onEdge, onWantedEdge_);
  }

  const FunctionModel& fn_;
  ValueReg target_;
  bool want_;
  InstId def_;
  std::vector<InstId> onWantedEdge_;
};

// The side of `branch` that every trip through the poll takes (nullopt: not
// decided), and whether the edges' facts decided it (they speak of the
// polling thread: past a barrier the path is another thread's).
struct DecidedSide {
  std::optional<bool> side;
  bool byFacts = false;
};
// `nextTrip` accepts the first instructions of the loops around the spin (a
// path through one starts another trip).
DecidedSide decidedSide(const FunctionModel& fn, const std::vector<Entry>& entries, InstId observe,
                        InstId branch, const std::function<bool(InstId)>& nextTrip, const EdgeFacts& edgeFacts) {
  const ValueReg g = fn.instructions[branch].guard->reg;
  const std::vector<InstId>& defs = fn.values->definitions(g);
  if (defs.size() != 1) return {};
  const InstId def = defs.front();
  // Session 26: the condition on each edge into the spin loop implies the
  // predicate, read back from the condition to the predicate's definition.
  auto byImplication = [&]() -> std::optional<bool> {
    auto isDef = [&](InstId i) { return i == def; };
    // The predicate keeps its value from each edge into the spin loop to the
    // poll, and from the poll on within its trip.
    auto isPoll = [&](InstId i) { return i == observe; };
    for (const Entry& e : entries) {
      if (!e.condition) return std::nullopt;
      if (e.condition->start == def) return std::nullopt;
      if (e.condition->start != observe && findReachable(fn, e.condition->start, isDef, isPoll) >= 0)
        return std::nullopt;
    }
    if (findReachable(fn, observe, isDef, nextTrip) >= 0) return std::nullopt;
    for (bool want : {false, true}) {
      Implication implication(fn, g, want, def);
      if (std::all_of(entries.begin(), entries.end(), [&](const Entry& e) {
            return implication.implies(e.condition->reg, e.condition->value, e.condition->at);
          }))
        return want;
    }
    return std::nullopt;
  };
  if (const std::optional<bool> side = byImplication()) return {side, false};
  // Session 27: the predicate evaluated forward from the facts of every edge
  // chain into the spin loop, each deciding it the same way (EdgeFacts.h).
  std::optional<bool> side;
  for (const Entry& e : entries) {
    const std::optional<bool> v = edgeFacts.evaluate(e.facts, g, branch);
    if (!v || (side && *side != *v)) return {};
    side = v;
  }
  return {side, true};
}

}  // namespace

InstId findReachableOnPollTrip(const FunctionModel& fn, const SpinLoop& spin, InstId observe,
                               const std::function<bool(InstId)>& target, const std::function<bool(InstId)>& stop,
                               const std::vector<InstId>& mayTarget, const std::vector<InstId>& mayStop) {
  const EdgeFacts edgeFacts(fn, spin.loop);
  const std::vector<Entry> entryEdges = fn.values ? entries(fn, spin, edgeFacts) : std::vector<Entry>{};
  const bool anything = std::any_of(entryEdges.begin(), entryEdges.end(),
                                    [](const Entry& e) { return e.condition || !e.facts.empty(); });
  if (entryEdges.empty() || !anything) return findReachable(fn, observe, target, stop, mayTarget, mayStop);
  // The headers of the loops around the spin: past one, a path is on another
  // trip, which may decide otherwise, and the walk no longer prunes.
  std::vector<InstId> headers;
  for (int32_t l = fn.loops[spin.loop].parent; l >= 0; l = fn.loops[l].parent)
    headers.push_back(fn.blocks[fn.loops[l].header].first);
  auto nextTrip = [&](InstId i) { return std::find(headers.begin(), headers.end(), i) != headers.end(); };
  std::unordered_map<InstId, DecidedSide> sides;
  auto side = [&](InstId branch) -> DecidedSide {
    auto [known, fresh] = sides.try_emplace(branch);
    if (fresh) known->second = decidedSide(fn, entryEdges, observe, branch, nextTrip, edgeFacts);
    return known->second;
  };
  auto may = [](const std::vector<InstId>& list, InstId i) { return std::binary_search(list.begin(), list.end(), i); };
  // The walk's mode: pruning (0); past a barrier, pruning only on the sides
  // session 26's implication decides (1: the edges' facts are the polling
  // thread's, and the path is now another thread's); not pruning (2: another trip).
  // entered[b * 3 + mode]: block b entered from its top in that mode.
  std::vector<char> entered(fn.blocks.size() * 3, 0);
  std::vector<std::pair<BlockId, int>> work;
  // Scans block b from `from`: the target met, or -1 (the successors queued).
  auto scan = [&](BlockId b, InstId from, int mode) -> InstId {
    for (InstId i = from; i < fn.blocks[b].last; ++i) {
      if (nextTrip(i)) mode = 2;
      const EffectKind k = fn.instructions[i].effect.kind;
      if (mode == 0 && (k == EffectKind::CtaBarrier || k == EffectKind::WarpSync)) mode = 1;
      if (may(mayTarget, i) && target(i)) return i;
      if (may(mayStop, i) && stop(i)) return -1;
    }
    const InstId br = conditionalBranch(fn, b);
    std::optional<bool> taken;
    if (mode < 2 && br >= 0 && fn.instructions[br].guard->reg >= 0) {
      const DecidedSide decided = side(br);
      if (mode == 0 || !decided.byFacts) taken = decided.side;
    }
    for (BlockId s : fn.blocks[b].successors) {
      if (taken && s != branchTarget(fn, br, *taken)) continue;
      char& e = entered[size_t(s) * 3 + mode];
      if (!e) e = 1, work.push_back({s, mode});
    }
    return -1;
  };
  InstId found = scan(fn.blockOf[observe], observe + 1, 0);
  for (size_t k = 0; k < work.size() && found < 0; ++k) {
    poll();
    found = scan(work[k].first, fn.blocks[work[k].first].first, work[k].second);
  }
  return found;
}

}  // namespace fenceline::model
