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

// A read by which thread (0, 0, 0) may observe another block's write: an
// atomic that returns the old value, or a morally strong load outside shared,
// local, parameter and constant memory. After its fence.sc such a read is not
// acquired by it: what thread (0, 0, 0) observes there (a count of the other
// blocks' arrivals) is passed on by the signals with no fence after it, so
// the fence releases only what came before it (the block's own writes).
bool observesOtherBlocks(const FunctionModel& fn, InstId i) {
  const MemoryEffect& e = fn.instructions[i].effect;
  if (e.kind == EffectKind::ReadModifyWrite) return e.reads && !isSharedSpace(e.space);
  if (e.kind != EffectKind::Load) return false;
  if (e.semantics != Semantics::Volatile && e.semantics != Semantics::Relaxed &&
      e.semantics != Semantics::Acquire && e.semantics != Semantics::Sc)
    return false;
  return e.space == Space::Global || e.space == Space::Generic;
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
// fence.sc before it reaches `closing` after the last read that may observe
// another block's write (observesOtherBlocks); none leaves the span
// another way (an exit, another barrier). Branches that test the thread index
// are decided for that thread; the others are followed on both sides.
std::optional<ScFenceSpan> ScFenceSpans::threadZeroFences(InstId opening, InstId closing) const {
  ScFenceSpan span;
  span.opening = opening;
  bool anyFence = false;
  // A block is entered at most once unfenced and once fenced.
  std::vector<char> entered[2] = {std::vector<char>(fn_.blocks.size(), 0), std::vector<char>(fn_.blocks.size(), 0)};
  std::vector<std::pair<BlockId, bool>> work;
  // Scans block b from `from` with `fenced` telling whether thread (0, 0, 0)
  // has executed a fence.sc on this path; false when it may reach `closing`
  // (or leave the span) without one after its last observing read.
  auto scan = [&](BlockId b, InstId from, bool fenced) {
    for (InstId i = from; i < fn_.blocks[b].last; ++i) {
      if (i == closing) return fenced;
      if (i == opening || synchronizes(fn_, i)) return false;
      if (fn_.instructions[i].effect.kind == EffectKind::Exit) {
        const std::optional<bool> exits = threadZeroExecutes(fn_, i);
        if (!exits || *exits) return false;  // thread (0, 0, 0) may leave before the closing barrier
        continue;
      }
      if (fenced && observesOtherBlocks(fn_, i)) {
        const std::optional<bool> runs = threadZeroExecutes(fn_, i);
        if (!runs || *runs) fenced = false;  // a later fence.sc must follow what it observed
        continue;
      }
      if (!isScFence(fn_, i)) continue;
      const std::optional<bool> runs = threadZeroExecutes(fn_, i);
      if (!runs) return false;
      if (!*runs) continue;
      Scope sc = fn_.instructions[i].effect.scope;
      if (sc == Scope::None) sc = Scope::Gpu;  // membar.gl, fence.sc without scope: .gpu
      if (!anyFence || sc < span.scope) span.scope = sc;
      if (span.fence < 0) span.fence = i;
      anyFence = true;
      fenced = true;
    }
    const auto& next = fn_.blocks[b].successors;
    if (next.empty()) return false;  // thread (0, 0, 0) leaves before the closing barrier
    std::vector<BlockId> taken(next.begin(), next.end());
    const InstId br = conditionalBranch(fn_, b);
    if (br >= 0 && fn_.instructions[br].guard->reg >= 0) {
      const std::optional<bool> v = ThreadPredicate(fn_, fn_.instructions[br].guard->reg, br)(0, 0, 0);
      if (v) taken = {branchTarget(fn_, br, *v)};
    }
    for (BlockId t : taken)
      if (t >= 0 && !entered[fenced][t]) entered[fenced][t] = 1, work.emplace_back(t, fenced);
    return true;
  };
  if (!scan(fn_.blockOf[opening], opening + 1, false)) return std::nullopt;
  while (!work.empty()) {
    poll();
    const auto [b, fenced] = work.back();
    work.pop_back();
    if (!scan(b, fn_.blocks[b].first, fenced)) return std::nullopt;
  }
  if (!anyFence) return std::nullopt;
  return span;
}

}  // namespace fenceline::model
