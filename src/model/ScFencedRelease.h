// Shape H's release (session 26): a whole-CTA barrier that closes a span in
// which thread (0, 0, 0) executes a fence.sc (model/ScFenceSpans.h) is a
// release for a relaxed signal after it, toward waiters that execute a
// fence.sc of their own after the poll. ScFenceSpans.h gives the PTX memory
// model's argument; the conditions here are its premises:
//  - both fences are morally strong: thread (0, 0, 0)'s fences and the
//    waiter's are fence.sc at a scope that includes the partner (the
//    signal's and the poll's required scope);
//  - every wait of this kernel on the signal's word reaches every read it
//    guards only through such a fence.sc (a fence.acq_rel or an ld.acquire
//    pairs with no release here; a signal that no wait of the kernel polls
//    has no waiter whose fence is known);
//  - no write the signal publishes lies between the two barriers on a path
//    to the closing one without a release (it would follow the fence).
// The last block's hand-off after a ticket is not such a release: the
// fence there comes before the ticket, so nothing acquires what the other
// blocks counted (release-missing keeps its own rule for that).
#pragma once

#include <unordered_map>
#include <vector>

#include "model/Protocol.h"
#include "model/ScFenceSpans.h"

namespace fenceline::model {

class ScFencedRelease {
 public:
  explicit ScFencedRelease(const ProtocolModel& ctx);
  // The barriers that may be such a release, sorted (a walk's `mayStop`).
  const std::vector<InstId>& candidates() const { return spans_.closingBarriers(); }
  // Some barrier may be such a release for `signal` (its waits all fence.sc).
  bool mayRelease(InstId signal);
  // Barrier `barrier` is such a release for `signal`.
  bool releasesFor(InstId barrier, InstId signal);

 private:
  bool waitsFenced(InstId signal, Scope need);
  bool spanClean(InstId barrier, const ScFenceSpan& span, InstId signal);

  const ProtocolModel& ctx_;
  ScFenceSpans spans_;
  std::unordered_map<InstId, bool> fencedWaits_;       // per signal
  std::unordered_map<uint64_t, bool> releases_;         // per (barrier, signal)
};

}  // namespace fenceline::model
