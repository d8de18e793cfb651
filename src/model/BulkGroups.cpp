// Bulk async-group walk (see BulkGroups.h). States are "how many groups were
// committed after the copy's own": -1 while the copy's group is still open,
// then 0, 1, ... capped at kMaxDepth (a wait_group N with N >= kMaxDepth is
// taken as not settling anything: conservative).
#include "model/BulkGroups.h"

#include <algorithm>
#include <vector>

#include "model/ThreadRoles.h"

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

// The successors the issuer takes out of `block`: when one successor is
// executed only by the issuer's election and `block` is wider, the issuer
// enters that one.
std::vector<BlockId> issuerSuccessors(const FunctionModel& fn, BlockId block, ThreadSet issuer) {
  const auto& successors = fn.blocks[block].successors;
  if (!fn.roles || !isElection(issuer) || successors.size() != 2) return successors;
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

int bulkWaitDepth(const FunctionModel& fn, InstId wait) {
  const auto& ops = fn.instructions[wait].operands;
  if (ops.empty() || ops.front().kind != ptx::Operand::Kind::Integer) return -1;
  return ops.front().intValue < 0 ? -1 : static_cast<int>(std::min<int64_t>(ops.front().intValue, kMaxDepth));
}

void walkWhilePending(const FunctionModel& fn, InstId copy, BulkWait level,
                      const std::function<bool(InstId, const Pending&)>& visit) {
  const BlockId start = fn.instructions[copy].block;
  if (start < 0) return;
  const ThreadSet issuer = fn.roles ? fn.roles->instructionSet(copy) : ThreadSet::All;
  std::vector<StateSet> seen(fn.blocks.size(), 0);
  struct Item {
    BlockId block;
    InstId from;  // first instruction to look at
    StateSet states;
  };
  std::vector<Item> work{{start, copy + 1, kOpen}};
  while (!work.empty()) {
    Item item = work.back();
    work.pop_back();
    StateSet s = item.states;
    const BasicBlock& b = fn.blocks[item.block];
    bool stopped = false;
    for (InstId i = item.from; i < b.last && s && !stopped; ++i) {
      if (isBulkCommit(fn, i)) {
        s = afterCommit(s);
        continue;
      }
      if (isBulkWait(fn, i) && (level == BulkWait::Read || !fn.instructions[i].hasModifier("read"))) {
        // A wait never settles a copy whose group is still open.
        s = (s & kOpen) | afterWait(s & ~kOpen, bulkWaitDepth(fn, i));
        continue;
      }
      Pending where;
      where.open = s & kOpen;
      for (int k = kMaxDepth; k >= 0 && where.deepest < 0; --k)
        if (s & (1u << (k + 1))) where.deepest = k;
      if (!visit(i, where)) stopped = true;
    }
    if (!s || stopped) continue;
    for (BlockId next : issuerSuccessors(fn, item.block, issuer)) {
      if (next < 0) continue;
      StateSet fresh = s & ~seen[next];
      if (!fresh) continue;
      seen[next] |= fresh;
      work.push_back({next, fn.blocks[next].first, fresh});
    }
  }
}

}  // namespace fenceline::model
