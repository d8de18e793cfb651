// Barrier pairs with a fence.sc of thread (0, 0, 0) between them (see
// ScFenceSpans.h): a backward walk from each whole-CTA barrier to the one
// barrier before it, and a forward walk of thread (0, 0, 0)'s paths between
// the two.
#include "model/ScFenceSpans.h"

#include <algorithm>

#include "model/BranchEdges.h"
#include "model/Limits.h"
#include "model/ThreadDecidedBranches.h"

namespace fenceline::model {

namespace {

bool isWholeBarrier(const FunctionModel& fn, InstId i) {
  const Inst& in = fn.instructions[i];
  return in.syntax && isWholeCtaBarrier(*in.syntax, in.effect);
}

bool isScFence(const FunctionModel& fn, InstId i) {
  const MemoryEffect& e = fn.instructions[i].effect;
  return e.kind == EffectKind::Fence && e.semantics == Semantics::Sc;
}

// A barrier of any kind, or a call (a callee may hold one): what a span may
// not contain besides its two barriers.
bool synchronizes(const FunctionModel& fn, InstId i) {
  const EffectKind k = fn.instructions[i].effect.kind;
  return k == EffectKind::CtaBarrier || k == EffectKind::CtaBarrierArrive || k == EffectKind::Call;
}

// Thread (0, 0, 0) executes instruction `i` when it reaches it: no guard, or
// a guard decided true for that thread. nullopt when not decided.
std::optional<bool> threadZeroExecutes(const FunctionModel& fn, InstId i) {
  const auto& g = fn.instructions[i].guard;
  if (!g || g->reg < 0) return true;
  const std::optional<bool> v = ThreadPredicate(fn, g->reg, i)(0, 0, 0);
  if (!v) return std::nullopt;
  return *v != g->negated;
}

}  // namespace

ScFenceSpans::ScFenceSpans(const FunctionModel& fn) : fn_(fn) {
  bool anyFence = false;
  std::vector<InstId> barriers;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    anyFence |= isScFence(fn, i);
    if (isWholeBarrier(fn, i)) barriers.push_back(i);
  }
  if (!anyFence || barriers.size() < 2) return;
  for (InstId b : barriers) {
    poll();
    if (std::optional<ScFenceSpan> span = compute(b)) {
      closing_.push_back(b);
      spans_.emplace(b, *span);
    }
  }
}

std::optional<ScFenceSpan> ScFenceSpans::spanClosedBy(InstId closing) const {
  const auto it = spans_.find(closing);
  if (it == spans_.end()) return std::nullopt;
  return it->second;
}

std::optional<ScFenceSpan> ScFenceSpans::compute(InstId closing) const {
  const InstId opening = openingBarrier(closing);
  if (opening < 0) return std::nullopt;
  return threadZeroFences(opening, closing);
}

// The one whole-CTA barrier that every path to `closing` last passed; -1 when
// there are several, when a path from the entry passes none, or when another
// barrier or a call comes between.
InstId ScFenceSpans::openingBarrier(InstId closing) const {
  InstId found = -1;
  std::vector<char> entered(fn_.blocks.size(), 0);
  std::vector<BlockId> work;
  // Scans block b backward from `from` (inclusive); false when the span is not one.
  auto scan = [&](BlockId b, InstId from) {
    for (InstId i = from; i >= fn_.blocks[b].first; --i) {
      if (isWholeBarrier(fn_, i)) {
        if (found >= 0 && found != i) return false;
        found = i;
        return true;
      }
      if (synchronizes(fn_, i)) return false;
    }
    if (b == 0) return false;  // the entry: a path with no barrier before
    for (BlockId p : fn_.blocks[b].predecessors)
      if (!entered[p]) entered[p] = 1, work.push_back(p);
    return true;
  };
  if (!scan(fn_.blockOf[closing], closing - 1)) return -1;
  while (!work.empty()) {
    poll();
    const BlockId b = work.back();
    work.pop_back();
    if (!scan(b, fn_.blocks[b].last - 1)) return -1;
  }
  return found;
}

// Thread (0, 0, 0)'s paths from `opening` to `closing`: each executes a
// fence.sc before it reaches `closing`, and none leaves the span another way
// (an exit, another barrier). Branches that test the thread index are
// decided for that thread; the others are followed on both sides.
std::optional<ScFenceSpan> ScFenceSpans::threadZeroFences(InstId opening, InstId closing) const {
  ScFenceSpan span;
  span.opening = opening;
  bool anyFence = false;
  std::vector<char> entered(fn_.blocks.size(), 0);
  std::vector<BlockId> work;
  // Scans block b from `from`; false when thread (0, 0, 0) may reach
  // `closing` (or leave the span) without a fence.sc.
  auto scan = [&](BlockId b, InstId from) {
    for (InstId i = from; i < fn_.blocks[b].last; ++i) {
      if (i == closing || i == opening || synchronizes(fn_, i)) return false;
      if (fn_.instructions[i].effect.kind == EffectKind::Exit) {
        const std::optional<bool> exits = threadZeroExecutes(fn_, i);
        if (!exits || *exits) return false;  // thread (0, 0, 0) may leave before the closing barrier
        continue;
      }
      if (!isScFence(fn_, i)) continue;
      const std::optional<bool> runs = threadZeroExecutes(fn_, i);
      if (!runs) return false;
      if (!*runs) continue;
      Scope s = fn_.instructions[i].effect.scope;
      if (s == Scope::None) s = Scope::Gpu;  // membar.gl, fence.sc without scope: .gpu
      if (!anyFence || s < span.scope) span.scope = s;
      if (span.fence < 0) span.fence = i;
      anyFence = true;
      return true;
    }
    const auto& next = fn_.blocks[b].successors;
    if (next.empty()) return false;  // thread (0, 0, 0) leaves before the closing barrier
    std::vector<BlockId> taken(next.begin(), next.end());
    const InstId br = conditionalBranch(fn_, b);
    if (br >= 0 && fn_.instructions[br].guard->reg >= 0) {
      const std::optional<bool> v = ThreadPredicate(fn_, fn_.instructions[br].guard->reg, br)(0, 0, 0);
      if (v) taken = {branchTarget(fn_, br, *v)};
    }
    for (BlockId s : taken)
      if (s >= 0 && !entered[s]) entered[s] = 1, work.push_back(s);
    return true;
  };
  if (!scan(fn_.blockOf[opening], opening + 1)) return std::nullopt;
  while (!work.empty()) {
    poll();
    const BlockId b = work.back();
    work.pop_back();
    if (!scan(b, fn_.blocks[b].first)) return std::nullopt;
  }
  if (!anyFence) return std::nullopt;
  return span;
}

}  // namespace fenceline::model
