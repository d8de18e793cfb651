// See OutsideValuePaths.h.
#include "model/OutsideValuePaths.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "model/BranchEdges.h"
#include "model/GuardedRanges.h"
#include "model/Memory.h"
#include "model/Operands.h"
#include "model/ThreadDecidedBranches.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

// A comparison `setp.CMP.TYPE p, a, b` of the value read with a bound.
struct Comparison {
  InstId setp = -1;
  int valueOperand = -1;  // 1 or 2: the value read
  int boundOperand = -1;  // the other
};

constexpr std::string_view kOrderings[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};

std::string_view orderingOf(const Inst& in) {
  for (std::string_view m : kOrderings)
    if (in.hasModifier(m)) return m;
  return {};
}

// The comparison that defines the predicate of conditional branch `branch`,
// when one of its operands is `reg` as `read` wrote it.
std::optional<Comparison> comparisonOfRead(const FunctionModel& fn, InstId branch, InstId read) {
  const auto& guard = fn.instructions[branch].guard;
  if (!guard || guard->reg < 0 || !fn.values) return std::nullopt;
  const InstId d = fn.values->definition(guard->reg, branch);
  if (d < 0 || fn.instructions[d].opcode() != "setp" || orderingOf(fn.instructions[d]).empty() ||
      fn.instructions[d].operands.size() != 3)
    return std::nullopt;
  for (int k = 1; k <= 2; ++k) {
    const ptx::Operand& op = fn.instructions[d].operands[k];
    if (op.kind == ptx::Operand::Kind::Register && fn.values->definition(op.reg, d) == read)
      return Comparison{d, k, 3 - k};
  }
  return std::nullopt;
}

// Some path from `from` (exclusive) reaches `target` without passing an
// instruction of `barrier` and without taking an edge `cut` rejects.
bool reaches(const FunctionModel& fn, InstId from, InstId target, const std::function<bool(InstId)>& barrier,
             const std::function<bool(BlockId, BlockId)>& cut) {
  std::vector<char> entered(fn.blocks.size(), 0);
  std::vector<BlockId> work;
  auto scan = [&](BlockId b, InstId start) {
    for (InstId i = start; i < fn.blocks[b].last; ++i) {
      if (i == target) return true;
      if (barrier(i)) return false;
    }
    for (BlockId n : fn.blocks[b].successors)
      if (!entered[n] && !cut(b, n)) entered[n] = 1, work.push_back(n);
    return false;
  };
  if (scan(fn.blockOf[from], from + 1)) return true;
  while (!work.empty()) {
    poll();
    const BlockId b = work.back();
    work.pop_back();
    if (scan(b, fn.blocks[b].first)) return true;
  }
  return false;
}

// The predicate's value on the edge pred -> succ, when the edge is one of a
// conditional branch's two.
std::optional<std::pair<InstId, bool>> edgeOf(const FunctionModel& fn, BlockId pred, BlockId succ) {
  const auto e = edgeCondition(fn, pred, succ);
  if (!e) return std::nullopt;
  return std::make_pair(e->branch, e->value);
}

// The single %tid.x that executes `inst` by its guards, if one.
std::optional<int64_t> oneThreadIndex(const FunctionModel& fn, InstId inst) {
  constexpr std::pair<int64_t, int64_t> kAnyThread{0, int64_t(1) << 20};
  const auto r = guardedRange(fn, inst, "%tid.x", kAnyThread);
  if (r.first != r.second) return std::nullopt;
  return r.first;
}

// The stores of the word that thread `tid` may have made last before `read`:
// a backward walk that stops at a store of the word and skips the edges the
// thread's own branches do not take. Nothing when a path reaches the entry
// without a store (the word's first value is not the kernel's).
std::optional<std::vector<InstId>> lastStoresBefore(const FunctionModel& fn, InstId read,
                                                    const std::vector<InstId>& wordStores, int64_t tid) {
  std::vector<InstId> found;
  std::vector<char> entered(fn.blocks.size(), 0);
  std::vector<BlockId> work;
  bool open = false;  // a path reached the entry
  auto scan = [&](BlockId b, InstId start) {
    for (InstId i = start; i >= fn.blocks[b].first; --i)
      if (std::binary_search(wordStores.begin(), wordStores.end(), i)) {
        if (std::find(found.begin(), found.end(), i) == found.end()) found.push_back(i);
        return;
      }
    if (fn.blocks[b].predecessors.empty()) open = true;
    for (BlockId p : fn.blocks[b].predecessors) {
      if (entered[p]) continue;
      if (const auto edge = edgeOf(fn, p, b)) {
        const auto& guard = fn.instructions[edge->first].guard;
        const std::optional<bool> taken = predicateForThreadIndex(fn, guard->reg, edge->first, tid);
        if (taken && *taken != edge->second) continue;  // the thread goes the other way
      }
      entered[p] = 1;
      work.push_back(p);
    }
  };
  scan(fn.blockOf[read], read - 1);
  while (!work.empty() && !open) {
    poll();
    const BlockId b = work.back();
    work.pop_back();
    scan(b, fn.blocks[b].last - 1);
  }
  if (open || found.empty()) return std::nullopt;
  return found;
}

// The relation `value REL bound` that a comparison states on the edge where
// its predicate is `edge` ("ge" for `setp.lt v, b` on its false edge; the
// operands swapped when the value is the second), with the comparison's type
// ("s64"); empty when the ordering is not one of kOrderings.
std::pair<std::string_view, std::string> relationOf(const Inst& setp, int valueOperand, bool edge) {
  static constexpr std::pair<std::string_view, std::string_view> kNegated[] = {
      {"eq", "ne"}, {"ne", "eq"}, {"lt", "ge"}, {"ge", "lt"}, {"le", "gt"}, {"gt", "le"},
      {"lo", "hs"}, {"hs", "lo"}, {"ls", "hi"}, {"hi", "ls"}};
  static constexpr std::pair<std::string_view, std::string_view> kSwapped[] = {
      {"eq", "eq"}, {"ne", "ne"}, {"lt", "gt"}, {"gt", "lt"}, {"le", "ge"}, {"ge", "le"},
      {"lo", "hi"}, {"hi", "lo"}, {"ls", "hs"}, {"hs", "ls"}};
  auto map = [](const auto& table, std::string_view op) {
    for (const auto& [from, to] : table)
      if (from == op) return to;
    return std::string_view();
  };
  std::string_view op = orderingOf(setp);
  if (op.empty()) return {};
  if (!edge) op = map(kNegated, op);
  if (valueOperand == 2) op = map(kSwapped, op);
  std::string type;
  for (std::string_view m : setp.syntax->modifiers)
    if (m != orderingOf(setp)) (type += ".") += m;
  return {op, type};
}

// Every path to `store` enters it through an edge on which a comparison of
// its stored value (operand `valueOperand`) with the same bound as `c`'s
// states the relation `relation` (a value and type from relationOf).
bool storedOnlyWhen(const FunctionModel& fn, InstId store, int valueOperand, const Comparison& c,
                    const std::pair<std::string_view, std::string>& relation) {
  for (BlockId b = fn.blockOf[store];; b = fn.idom[b]) {
    poll();
    for (BlockId p : fn.blocks[b].predecessors) {
      if (fn.dominates(b, p) || !edgeDominatesBlock(fn, p, b, fn.blockOf[store])) continue;
      const auto edge = edgeOf(fn, p, b);
      if (!edge) continue;
      const auto& guard = fn.instructions[edge->first].guard;
      const InstId d = fn.values->definition(guard->reg, edge->first);
      if (d < 0 || fn.instructions[d].opcode() != "setp" || fn.instructions[d].operands.size() != 3) continue;
      for (int k = 1; k <= 2; ++k) {
        if (!fn.values->sameValue(d, k, store, valueOperand)) continue;
        if (!fn.values->sameValue(d, 3 - k, c.setp, c.boundOperand)) continue;
        if (relationOf(fn.instructions[d], k, edge->second) == relation) return true;
      }
    }
    if (fn.idom[b] == b || b == 0) return false;
  }
}

}  // namespace

std::optional<OutsideValuePath> pathOnlyForOutsideValues(const FunctionModel& fn, InstId read, InstId rewrite,
                                                         const std::vector<InstId>& wordStores,
                                                         const std::function<bool(InstId)>& barrier) {
  if (!fn.values || !fn.memory || wordStores.empty()) return std::nullopt;
  if (writtenRegisters(fn.instructions[read]).size() != 1) return std::nullopt;
  auto noCut = [](BlockId, BlockId) { return false; };
  if (!reaches(fn, read, rewrite, barrier, noCut)) return std::nullopt;
  // 1. The branch edges (a comparison of the value read) that every barrier-free
  // path from the read to the rewrite takes.
  struct PathEdge {
    InstId branch;
    Comparison cmp;
    bool value;  // the predicate's value on the path's edge
  };
  std::vector<PathEdge> edges;
  for (BlockId b = 0; b < static_cast<BlockId>(fn.blocks.size()); ++b) {
    const InstId br = conditionalBranch(fn, b);
    if (br < 0) continue;
    const auto c = comparisonOfRead(fn, br, read);
    if (!c) continue;
    for (bool value : {true, false}) {
      const BlockId to = branchTarget(fn, br, value);
      if (to < 0 || to == branchTarget(fn, br, !value)) continue;
      if (!reaches(fn, read, rewrite, barrier, [&](BlockId x, BlockId y) { return x == b && y == to; }))
        edges.push_back({br, *c, value});
    }
  }
  if (edges.empty()) return std::nullopt;
  // 2. One thread stores the word; the stores it may have made last before the read.
  std::optional<int64_t> tid;
  for (InstId w : wordStores) {
    const auto t = oneThreadIndex(fn, w);
    if (!t || (tid && *t != *tid)) return std::nullopt;
    tid = t;
  }
  const auto sources = lastStoresBefore(fn, read, wordStores, *tid);
  if (!sources) return std::nullopt;
  // 3. Each stored value: a constant that a test on the way turns away, or a
  // global load whose decided writers store only under the opposite comparison.
  std::vector<std::string> why;
  std::vector<InstId> loads;
  for (InstId w : *sources) {
    const Inst& store = fn.instructions[w];
    const int valueOperand = static_cast<int>(store.operands.size()) - 1;
    if (valueOperand <= store.effect.address) return std::nullopt;
    if (const auto constant = fn.values->constantOf(w, valueOperand)) {
      // With the value equal to the constant, only the edges of equality tests that agree are taken.
      auto inconsistent = [&](BlockId x, BlockId y) {
        const auto edge = edgeOf(fn, x, y);
        if (!edge) return false;
        const auto c = comparisonOfRead(fn, edge->first, read);
        if (!c) return false;
        const Inst& s = fn.instructions[c->setp];
        const auto bound = fn.values->constantOf(c->setp, c->boundOperand);
        if (!bound || *bound != *constant) return false;
        if (s.hasModifier("eq")) return !edge->second;
        if (s.hasModifier("ne")) return edge->second;
        return false;
      };
      if (reaches(fn, read, rewrite, barrier, inconsistent)) return std::nullopt;
      why.push_back(fmt::format("the stored constant {} leaves by a test on the way", *constant));
      continue;
    }
    const ptx::Operand& v = store.operands[valueOperand];
    if (v.kind != ptx::Operand::Kind::Register) return std::nullopt;
    const InstId load = fn.values->definition(v.reg, w);
    if (load < 0) return std::nullopt;
    const auto& le = fn.instructions[load].effect;
    if (le.kind != EffectKind::Load || le.address < 0) return std::nullopt;
    Space space = le.space;
    if (space == Space::Generic) space = fn.memory->space(load, le.address);
    if (space != Space::Global && space != Space::Generic) return std::nullopt;
    loads.push_back(load);
  }
  // The in-kernel writers of each loaded location (decidedly that location)
  // store only where the comparison has the other value.
  auto writersOnlyOpposite = [&](const PathEdge& edge) {
    for (InstId load : loads) {
      const auto& le = fn.instructions[load].effect;
      int writers = 0;  // a location the kernel writes (not an input of the launch alone)
      for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
        const auto& e = fn.instructions[i].effect;
        if (fn.instructions[i].block < 0 || !e.writes || e.address < 0) continue;
        Space s = e.space;
        if (s == Space::Generic) s = fn.memory->space(i, e.address);
        if (s != Space::Global && s != Space::Generic) continue;
        const AliasEvidence same = fn.memory->aliasEvidence(i, e.address, 0, load, le.address, 0);
        if (same.result == AliasResult::No || !same.decided) continue;
        const int stored = static_cast<int>(fn.instructions[i].operands.size()) - 1;
        if (e.kind != EffectKind::Store || stored <= e.address) return false;
        if (!storedOnlyWhen(fn, i, stored, edge.cmp, relationOf(fn.instructions[edge.cmp.setp], edge.cmp.valueOperand,
                                                                 !edge.value)))
          return false;
        ++writers;
      }
      if (writers == 0) return false;
    }
    return true;
  };
  for (const PathEdge& edge : edges) {
    if (!writersOnlyOpposite(edge)) continue;
    for (InstId load : loads)
      why.push_back(fmt::format("the value loaded at PTX line {} is stored in the kernel only where that comparison "
                                "is {}",
                                fn.instructions[load].syntax->pos.line, edge.value ? "false" : "true"));
    OutsideValuePath result;
    result.branch = edge.branch;
    result.detail = fmt::format(
        "every path from the read to the rewrite that passes no barrier takes the edge where the `{}` comparison "
        "of the value read with its bound is {}; no store of the kernel gives the word such a value ({}): only "
        "memory written outside the kernel (a slot the host seeded) could, which the PTX does not show",
        orderingOf(fn.instructions[edge.cmp.setp]), edge.value ? "true" : "false", fmt::join(why, "; "));
    return result;
  }
  return std::nullopt;
}

}  // namespace fenceline::model
