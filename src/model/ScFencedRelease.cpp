// Shape H's release (see ScFencedRelease.h): the waiters' fences, found by a
// forward walk from each poll, and the span's own writes, by a backward walk
// from the closing barrier.
#include "model/ScFencedRelease.h"

#include <algorithm>
#include <iterator>

#include "model/Paths.h"

namespace fenceline::model {

ScFencedRelease::ScFencedRelease(const ProtocolModel& ctx) : ctx_(ctx), spans_(ctx.function()) {}

bool ScFencedRelease::mayRelease(InstId signal) {
  if (candidates().empty()) return false;
  auto [known, fresh] = fencedWaits_.try_emplace(signal, false);
  if (fresh) known->second = waitsFenced(signal, ctx_.requiredScope(signal));
  return known->second;
}

bool ScFencedRelease::releasesFor(InstId barrier, InstId signal) {
  const std::optional<ScFenceSpan> span = spans_.spanClosedBy(barrier);
  if (!span || !mayRelease(signal)) return false;
  const uint64_t key = (uint64_t(uint32_t(barrier)) << 32) | uint32_t(signal);
  auto [known, fresh] = releases_.try_emplace(key, false);
  if (fresh)
    known->second = span->scope >= ctx_.requiredScope(signal) && spanClean(barrier, *span, signal);
  return known->second;
}

// Every poll of the signal's word reaches the reads it guards only through a
// fence.sc whose scope includes the partner.
bool ScFencedRelease::waitsFenced(InstId signal, Scope need) {
  const FunctionModel& fn = ctx_.function();
  const std::vector<InstId>& polls = ctx_.pollsOfWord(signal);
  if (polls.empty()) return false;
  for (InstId poll : polls) {
    const Scope scope = std::max(need, ctx_.requiredScope(poll));
    auto scFence = [&](InstId i) {
      const MemoryEffect& e = fn.instructions[i].effect;
      return e.kind == EffectKind::Fence && e.semantics == Semantics::Sc && ctx_.scopeOf(i) >= scope;
    };
    auto guarded = [&](InstId i) { return ctx_.isGuardedRead(i, poll); };
    if (findReachable(fn, poll, guarded, scFence, ctx_.guardedReadsAfter(poll), ctx_.acquirePoints()) >= 0)
      return false;
  }
  return true;
}

// No write the signal publishes reaches the closing barrier from inside the
// span without a release.
bool ScFencedRelease::spanClean(InstId barrier, const ScFenceSpan& span, InstId signal) {
  const FunctionModel& fn = ctx_.function();
  // A counting atomic of the span (the last block's ticket, a flag of its
  // own) is synchronization with rules of its own, not data of this signal.
  auto counts = [&](InstId i) {
    const auto& tickets = ctx_.tickets();
    const auto& signals = ctx_.signals();
    return std::binary_search(tickets.begin(), tickets.end(), i) ||
           std::binary_search(signals.begin(), signals.end(), i);
  };
  auto published = [&](InstId i) { return !counts(i) && ctx_.isPublishedWrite(i, signal); };
  auto stop = [&](InstId i) { return i == span.opening || ctx_.releasesFor(i, signal); };
  const std::vector<InstId>& releases = ctx_.releasePoints();
  std::vector<InstId> mayStop;
  mayStop.reserve(releases.size() + 1);
  std::merge(releases.begin(), releases.end(), &span.opening, &span.opening + 1, std::back_inserter(mayStop));
  return findReachingBackward(fn, barrier, published, stop, ctx_.globalWrites(), mayStop).empty();
}

}  // namespace fenceline::model
