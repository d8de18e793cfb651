// Chained blocks (issue 34; ProtocolModel::partnerBlockOfPoll and
// partnerBlockOfSignal, Protocol.h; MemoryAnalysis::blockDistance, Memory.h).
//
// Block b waits for block b - 1 (a chained scan, a blocked triangular
// solve): it polls flags[b - 1] and raises flags[b]. The protocol model
// compares two addresses with one value of every term, for which these are
// two words; the partner is another block, whose block index is another
// value, and for the block one before they are one word. When the signal's
// and the poll's addresses differ only in the block index's term, by a
// multiple of its coefficient, the signal made by the block that far away
// raises the polled word, and that block's data writes are compared with the
// reads under the same renaming of the block index. A flag that some signal
// also names in the poller's own block (the per-block slices of shape S, one
// flag per block) keeps the ordinary rules: the renaming is taken only when
// every signal of the wait (every wait of the signal) meets it at one
// distance.
#include <fmt/format.h>

#include <cstdlib>

#include "model/Protocol.h"

namespace fenceline::model {

// Chained blocks (issue 34): a signal and a poll that one block sees as two
// words are one word for two blocks this far apart (blockDistance).
MemoryAnalysis::BlockDistance ProtocolModel::flagDistance(InstId signal, InstId poll) const {
  const int os = protocolAddress(fn_, signal), op = protocolAddress(fn_, poll);
  if (os < 0 || op < 0 || alias(signal, poll) != Alias::No) return {};
  return memory_.blockDistance(signal, os, poll, op);
}

// The partner block of a wait: another block, unless the flag pins it to
// this one (partnerInOwnBlock); the block at a distance when every in-kernel
// signal meets the poll only there (flagDistance, one distance for all).
ProtocolModel::PartnerBlock ProtocolModel::partnerBlockOfPoll(InstId poll) const {
  PartnerBlock out{!partnerInOwnBlock(poll), {}};
  if (out.other) out.at = commonDistance(polledDistance_, poll, &ProtocolModel::inKernelSignalsFor, /*opIsPoll=*/true);
  return out;
}

ProtocolModel::PartnerBlock ProtocolModel::partnerBlockOfSignal(InstId signal) const {
  PartnerBlock out{!signalPartnerInOwnBlock(signal), {}};
  if (out.other) out.at = commonDistance(signalDistance_, signal, &ProtocolModel::pollsOf, /*opIsPoll=*/false);
  return out;
}

MemoryAnalysis::BlockDistance ProtocolModel::commonDistance(
    std::unordered_map<InstId, MemoryAnalysis::BlockDistance>& cache, InstId op, OtherSide others, bool opIsPoll) const {
  if (const auto known = cache.find(op); known != cache.end()) return known->second;
  MemoryAnalysis::BlockDistance common;
  bool mixed = false;
  for (InstId other : (this->*others)(op)) {
    const InstId signal = opIsPoll ? other : op, poll = opIsPoll ? op : other;
    const MemoryAnalysis::BlockDistance d = flagDistance(signal, poll);
    // A word this block's own expression names too, or another distance:
    // the ordinary rules.
    if (!d.found() || (common.found() && (d.dimension != common.dimension || d.distance != common.distance))) {
      mixed = true;
      break;
    }
    common = d;
  }
  if (mixed) common = {};
  cache[op] = common;
  return common;
}

AliasEvidence ProtocolModel::flagDistanceEvidence(MemoryAnalysis::BlockDistance d) {
  AliasEvidence e;
  e.result = Alias::May;
  e.decided = true;
  e.how = "block-distance";
  e.detail = fmt::format("made by the block at the poller's %ctaid.{} {} {}, the signal writes the polled word: the "
                         "two addresses differ only in the block index's term, by {} times its coefficient",
                         char('x' + d.dimension), d.distance < 0 ? '-' : '+', std::abs(d.distance), std::abs(d.distance));
  return e;
}

// The partner block at a distance (chained blocks): the pair compared with
// the write's block index renamed to the partner's (atBlockDistance).
ProtocolModel::PairEvidence ProtocolModel::pairAtDistance(InstId write, InstId read, MemoryAnalysis::BlockDistance at) const {
  const int ow = protocolAddress(fn_, write), orr = protocolAddress(fn_, read);
  const auto kind = ow < 0 || orr < 0 || goesThroughPeerPointer(write) || readsThroughPeerPointer(read)
                        ? MemoryAnalysis::AtDistance::Stands
                        : memory_.atBlockDistance(write, ow, read, orr, at);
  PairEvidence pair;
  switch (kind) {
    case MemoryAnalysis::AtDistance::Stands: return writeReadEvidence(write, read);
    case MemoryAnalysis::AtDistance::Apart: return pair;
    case MemoryAnalysis::AtDistance::Meets:
      pair.mayRead = true;
      pair.decided = true;
      pair.how = PairEvidence::How::BlockDistance;
      if (const auto how = undecidedPairHow(write, read)) {
        pair.decided = false;
        pair.how = *how;
      }
      return pair;
    case MemoryAnalysis::AtDistance::Undecided:
      pair.mayRead = !fn_.instructions[read].hasModifier("nc") || mayReadWrite(read, write);
      pair.how = PairEvidence::How::BlockDistance;
      return pair;
  }
  return pair;
}

}  // namespace fenceline::model
