// Async-group walk (see BulkGroups.h), bulk and non-bulk groups alike. States
// are "how many groups were committed after the copy's own": -1 while the copy's group is still open,
// then 0, 1, ... capped at kMaxDepth (a wait_group N with N >= kMaxDepth is
// taken as not settling anything: conservative).
#include "model/BulkGroups.h"

#include <algorithm>
#include <vector>

#include "model/BranchEdges.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

constexpr int kMaxDepth = 14;                   // states -1 .. kMaxDepth
using StateSet = uint16_t;                       // bit (k + 1) = k groups committed after the copy's
constexpr StateSet kOpen = 1;                    // the copy's own group not committed yet

StateSet afterCommit(StateSet s) {
  StateSet next = 0;
  for (int k = -1; k <= kMaxDepth; ++k)
    if (s & (1u << (k + 1))) next |= 1u << (std::min(k + 1, kMaxDepth) + 1);
  return next;
}

// Removes the states a wait_group N settles: k >= N (the copy's group is not
// among the N most recent).
StateSet afterWait(StateSet s, int depth) {
  if (depth < 0 || depth >= kMaxDepth) return s;
  StateSet keep = 0;
  for (int k = -1; k < depth; ++k) keep |= 1u << (k + 1);
  return s & keep;
}

bool isElection(ThreadSet set) {
  return set == ThreadSet::OneLane || set == ThreadSet::OneThread || set == ThreadSet::OneBlockThread;
}

// The predicates that put the issuer on the copy's path: the guard of the
// copy itself, or of the conditional branch into its block (from its only
// predecessor), and what that implies through or.pred / and.pred / not.pred
// (`@!(p | q)` means p and q are both false). Later branches on the same
// predicate value (same definition, or an equivalent setp) are taken the way
// the issuer takes them: CUTLASS computes `issue_tma_store` once and guards
// the store, the commit and the wait with it, in separate blocks.
struct PredicateFact {
  InstId definition = -1;
  bool value = false;  // the predicate's value on the issuer's path
};
using IssuerPredicate = std::vector<PredicateFact>;

void addFacts(const FunctionModel& fn, InstId definition, bool value, int depth, IssuerPredicate& facts) {
  if (definition < 0) return;
  facts.push_back({definition, value});
  if (depth == 0) return;
  const Inst& d = fn.instructions[definition];
  if (d.opcode() != "or" && d.opcode() != "and" && d.opcode() != "not") return;
  if (!d.hasModifier("pred")) return;
  // or = false: every operand false; and = true: every operand true; not: the operand's opposite.
  const bool implies = d.opcode() == "not" || (d.opcode() == "or" && !value) || (d.opcode() == "and" && value);
  if (!implies) return;
  for (size_t k = 1; k < d.operands.size(); ++k)
    if (d.operands[k].kind == ptx::Operand::Kind::Register)
      addFacts(fn, fn.values->definition(d.operands[k].reg, definition), d.opcode() == "not" ? !value : value,
               depth - 1, facts);
}

IssuerPredicate issuerPredicate(const FunctionModel& fn, InstId copy) {
  IssuerPredicate facts;
  if (!fn.values) return facts;
  const Inst& in = fn.instructions[copy];
  if (in.guard) {
    addFacts(fn, fn.values->definition(in.guard->reg, copy), !in.guard->negated, 3, facts);
    return facts;
  }
  const BasicBlock& b = fn.blocks[in.block];
  if (b.predecessors.size() != 1) return facts;
  if (auto edge = edgeCondition(fn, b.predecessors.front(), in.block))
    addFacts(fn, fn.values->definition(edge->predicate, edge->branch), edge->value, 3, facts);
  return facts;
}

// Two definitions compute the same value for a thread: the same
// instruction, or the same opcode and modifiers over operands that are equal
// immediates, the same special register, or registers whose reaching
// definitions compute the same value in turn (a few levels deep). An
// unrolled epilogue recomputes `issue_tma_store` per subtile into fresh
// registers: `and.b32 %r, %r1, 255; add.s32 %r2, %r, 31; setp.gt.u32 %p, %r2, 62`.
bool sameComputation(const FunctionModel& fn, InstId a, InstId b, int depth) {
  if (a < 0 || b < 0) return false;
  if (a == b) return true;
  if (depth == 0) return false;
  const Inst& x = fn.instructions[a];
  const Inst& y = fn.instructions[b];
  if (x.opcode() != y.opcode() || !std::ranges::equal(x.syntax->modifiers, y.syntax->modifiers)) return false;
  if (x.operands.size() != y.operands.size() || x.effect.kind != EffectKind::None || x.guard || y.guard) return false;
  if (x.opcode() == "ld" || x.opcode() == "atom" || x.opcode() == "shfl" || x.opcode() == "vote") return false;
  for (size_t k = 1; k < x.operands.size(); ++k) {  // operand 0 is the register written
    const ptx::Operand& ox = x.operands[k];
    const ptx::Operand& oy = y.operands[k];
    if (ox.kind != oy.kind) return false;
    switch (ox.kind) {
      case ptx::Operand::Kind::Integer:
        if (ox.intValue != oy.intValue) return false;
        break;
      case ptx::Operand::Kind::Register: {
        if (ox.reg == oy.reg && fn.values->definition(ox.reg, a) == fn.values->definition(oy.reg, b)) break;
        const InstId dx = fn.values->definition(ox.reg, a), dy = fn.values->definition(oy.reg, b);
        if (dx < 0 && dy < 0 && ox.reg == oy.reg) break;  // a parameter or special register, never redefined
        if (!sameComputation(fn, dx, dy, depth - 1)) return false;
        break;
      }
      case ptx::Operand::Kind::Special:
      case ptx::Operand::Kind::Symbol:
        if (ox.text != oy.text) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

bool samePredicateValue(const FunctionModel& fn, InstId a, InstId b) { return sameComputation(fn, a, b, 6); }

// The successors the issuer takes out of `block`: the way its predicate
// goes at a branch on the same predicate; into the block of its own
// election when one successor is only the election's and `block` is wider;
// otherwise all.
std::vector<BlockId> issuerSuccessors(const FunctionModel& fn, BlockId block, ThreadSet issuer,
                                      const IssuerPredicate& predicate) {
  const auto& successors = fn.blocks[block].successors;
  if (successors.size() != 2) return successors;
  const InstId branch = predicate.empty() ? -1 : conditionalBranch(fn, block);
  if (branch >= 0) {
    const InstId definition = fn.values->definition(fn.instructions[branch].guard->reg, branch);
    for (const PredicateFact& fact : predicate) {
      if (!samePredicateValue(fn, definition, fact.definition)) continue;
      const BlockId target = branchTarget(fn, branch, fact.value);
      if (std::find(successors.begin(), successors.end(), target) != successors.end()) return {target};
    }
  }
  if (!fn.roles || !isElection(issuer)) return successors;
  if (fn.roles->blockSet(block) == issuer) return successors;
  for (BlockId s : successors)
    if (s >= 0 && fn.roles->blockSet(s) == issuer) return {s};
  return successors;
}

}  // namespace

bool isBulkCommit(const FunctionModel& fn, InstId inst) {
  const auto& in = fn.instructions[inst];
  return in.effect.kind == EffectKind::AsyncCommit && in.hasModifier("bulk");
}

bool isBulkWait(const FunctionModel& fn, InstId inst) {
  const auto& in = fn.instructions[inst];
  return in.effect.kind == EffectKind::AsyncWait && in.hasModifier("bulk");
}

int bulkWaitDepth(const FunctionModel& fn, InstId wait) { return groupWaitDepth(fn, wait); }

bool isGroupCommit(const FunctionModel& fn, InstId inst, GroupKind kind) {
  if (kind == GroupKind::Bulk) return isBulkCommit(fn, inst);
  const auto& in = fn.instructions[inst];
  if (in.hasModifier("bulk")) return false;
  return in.effect.kind == EffectKind::AsyncCommit ||
         (in.effect.kind == EffectKind::AsyncWait && in.hasModifier("wait_all"));
}

bool isGroupWait(const FunctionModel& fn, InstId inst, GroupKind kind) {
  if (kind == GroupKind::Bulk) return isBulkWait(fn, inst);
  const auto& in = fn.instructions[inst];
  return in.effect.kind == EffectKind::AsyncWait && !in.hasModifier("bulk");
}

int groupWaitDepth(const FunctionModel& fn, InstId wait) {
  const auto& in = fn.instructions[wait];
  if (in.hasModifier("wait_all")) return 0;
  const auto& ops = in.operands;
  if (ops.empty() || ops.front().kind != ptx::Operand::Kind::Integer) return -1;
  return ops.front().intValue < 0 ? -1 : static_cast<int>(std::min<int64_t>(ops.front().intValue, kMaxDepth));
}

namespace {

// The walk both entry points share: `visit` sees every instruction reached
// while the copy is pending (false: stop along that path); `settled` every
// wait that settles the copy on some state.
void walkGroups(const FunctionModel& fn, InstId copy, GroupKind kind, BulkWait level,
                const std::function<bool(InstId, const Pending&)>& visit, const std::function<void(InstId)>& settled) {
  const BlockId start = fn.instructions[copy].block;
  if (start < 0) return;
  const ThreadSet issuer = fn.roles ? fn.roles->instructionSet(copy) : ThreadSet::All;
  const IssuerPredicate predicate = issuerPredicate(fn, copy);
  // The states each block was entered with. A walk touches few blocks while
  // its copy is pending, so the array is kept per thread and only the touched
  // entries are cleared: a fresh array per walk would cost every copy the
  // whole function (copies x blocks). A walk started from `visit` gets its own.
  thread_local std::vector<StateSet> scratch;
  thread_local bool scratchBusy = false;
  std::vector<StateSet> own;
  const bool reuse = !scratchBusy;
  std::vector<StateSet>& seen = reuse ? scratch : own;
  if (seen.size() < fn.blocks.size()) seen.resize(fn.blocks.size(), 0);
  std::vector<BlockId> touched;
  struct Release {
    bool reuse;
    std::vector<StateSet>& seen;
    std::vector<BlockId>& touched;
    ~Release() {
      for (BlockId b : touched) seen[b] = 0;
      if (reuse) scratchBusy = false;
    }
  } release{reuse, seen, touched};
  if (reuse) scratchBusy = true;
  struct Item {
    BlockId block;
    InstId from;  // first instruction to look at
    StateSet states;
  };
  std::vector<Item> work{{start, copy + 1, kOpen}};
  while (!work.empty()) {
    model::poll();
    Item item = work.back();
    work.pop_back();
    StateSet s = item.states;
    const BasicBlock& b = fn.blocks[item.block];
    bool stopped = false;
    for (InstId i = item.from; i < b.last && s && !stopped; ++i) {
      const bool commits = isGroupCommit(fn, i, kind);
      const bool waits = isGroupWait(fn, i, kind) && (level == BulkWait::Read || !fn.instructions[i].hasModifier("read"));
      if (commits) s = afterCommit(s);
      if (waits) {
        // A wait never settles a copy whose group is still open.
        const StateSet before = s;
        s = (s & kOpen) | afterWait(s & ~kOpen, groupWaitDepth(fn, i));
        if (s != before && settled) settled(i);
      }
      if (commits || waits) continue;
      Pending where;
      where.open = s & kOpen;
      for (int k = kMaxDepth; k >= 0 && where.deepest < 0; --k)
        if (s & (1u << (k + 1))) where.deepest = k;
      if (!visit(i, where)) stopped = true;
    }
    if (!s || stopped) continue;
    for (BlockId next : issuerSuccessors(fn, item.block, issuer, predicate)) {
      if (next < 0) continue;
      StateSet fresh = s & ~seen[next];
      if (!fresh) continue;
      if (!seen[next]) touched.push_back(next);
      seen[next] |= fresh;
      work.push_back({next, fn.blocks[next].first, fresh});
    }
  }
}

}  // namespace

void walkWhilePending(const FunctionModel& fn, InstId copy, BulkWait level,
                      const std::function<bool(InstId, const Pending&)>& visit, GroupKind kind) {
  walkGroups(fn, copy, kind, level, visit, nullptr);
}

std::vector<InstId> settlingWaits(const FunctionModel& fn, InstId copy, GroupKind kind, BulkWait level,
                                  const std::function<bool(InstId)>& stopAt) {
  std::vector<InstId> waits;
  walkGroups(
      fn, copy, kind, level, [&](InstId i, const Pending&) { return !stopAt || !stopAt(i); },
      [&](InstId wait) { waits.push_back(wait); });
  std::sort(waits.begin(), waits.end());
  waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
  return waits;
}

}  // namespace fenceline::model
