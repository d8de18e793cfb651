// Which signal publishes a partner's write to a wait (issue 34, NCCL's
// AlltoAll_LL: a block's epoch word, read after a start wait and incremented
// by its thread 0 at the end of the kernel, before the done flags only).
//
// The partner model gathers a wait's partner writes before every signal that
// may write the polled word, those whose link with it is undecided included
// (a store through a pointer the analysis cannot name may be any flag). A
// finding then showed the signal the wait decidedly observes and, as its
// data, a write that precedes only such an unnamed store: the chain "the
// partner wrote this, then raised the flag the wait sees" holds only if that
// store is the flag, which the PTX does not show. The data link of such a
// write is undecided (`unrelated-signal`); a write before a decided signal of
// the word, in the same mode of the launch, keeps its link.
#include "model/Protocol.h"

#include <algorithm>

#include "model/DispatchLoops.h"
#include "model/Paths.h"

namespace fenceline::model {

uint32_t ProtocolModel::decidedSignalSet(InstId poll) const {
  if (const auto known = decidedSignalSetOf_.find(poll); known != decidedSignalSetOf_.end()) return known->second;
  // The kinds of link computeObservedSignal takes as decided among the
  // kernel's signals: the same word, or the block at a distance the flag's
  // addresses fix. A call given the flag and a peer's copy of the field are
  // not among them: their partner writes are not gathered per signal.
  std::vector<InstId> decided;
  for (InstId s : inKernelSignalsFor(poll)) {
    if (exclusiveModes(s, poll)) continue;
    const AliasFacts e = aliasFacts(s, poll);
    if (e.result == Alias::No ? flagDistance(s, poll).found() : e.decided) decided.push_back(s);
  }
  uint32_t set = kAnySignal;
  if (!decided.empty()) {
    std::sort(decided.begin(), decided.end());
    decided.erase(std::unique(decided.begin(), decided.end()), decided.end());
    auto [entry, added] =
        decidedSignalSetIds_.try_emplace(std::move(decided), static_cast<uint32_t>(decidedSignalSets_.size() + 1));
    if (added) decidedSignalSets_.push_back(&entry->first);
    set = entry->second;
  }
  decidedSignalSetOf_.emplace(poll, set);
  return set;
}

bool ProtocolModel::signalledToWait(InstId write, InstId poll) const {
  const uint32_t set = decidedSignalSet(poll);
  if (set == kAnySignal) return true;
  const uint64_t key = (uint64_t(uint32_t(write)) << 32) | set;
  if (const bool* known = signalledToWait_.find(key)) return *known;
  const std::vector<InstId>& signals = *decidedSignalSets_[set - 1];
  // A write that reaches a signal only through another trip of an
  // interpreter's dispatch loop precedes it as the run-time plan says
  // (model/DispatchLoops.h): not decided by the PTX.
  const bool before = std::any_of(signals.begin(), signals.end(), [&](InstId s) {
    return !exclusiveModes(write, s) && reachable(fn_, write, s) && !reachesOnlyThroughDispatch(fn_, write, s);
  });
  signalledToWait_.insert(key, before);
  return before;
}

AliasEvidence ProtocolModel::unrelatedSignalEvidence() {
  return undecidedPairEvidence(
      "unrelated-signal",
      "the partner makes this write only before signals that the analysis cannot relate to the polled word (stores "
      "through pointers it cannot name), none before a signal on that word: the waiter sees it only if one of those "
      "is the flag, which the PTX does not show");
}

uint32_t ProtocolModel::partnerChoiceSet(InstId poll) const {
  const std::pair<uint32_t, uint32_t> sets{partnerWriteSet(poll), decidedSignalSet(poll)};
  auto [entry, added] = partnerChoiceSets_.try_emplace(sets, static_cast<uint32_t>(partnerChoiceSets_.size()));
  return entry->second;
}

}  // namespace fenceline::model
