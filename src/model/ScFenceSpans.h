// A fence.sc that one thread of the block executes between two whole-CTA
// barriers (session 26, cuDSS's shape H): the block's threads write, a
// `__syncthreads()` gathers them, thread (0, 0, 0) alone executes
// `__threadfence()` (fence.sc), a second `__syncthreads()` hands that on, and
// then any thread signals with a relaxed store or atomic of its own.
//
// The PTX memory model (Memory Consistency Model: "Fence-SC order",
// "Memory synchronization", "Causality order", axiom "Causality") makes that
// a release toward a waiter that itself executes a fence.sc after its poll,
// both fences morally strong (each one's scope includes the other thread):
// Fence-SC order relates the two fences, and a fence.sc synchronizes with
// every fence.sc after it in that order. Were the waiter's fence first, the
// poll would precede the signal in base causality order (poll, waiter's
// fence, thread 0's fence, the second barrier, the signal), and the axiom
// "Causality" forbids a read to read from a write it precedes in causality
// order; so thread 0's fence comes first, and every write before the first
// barrier precedes the waiter's reads in base causality order (the first
// barrier synchronizes the writers with thread 0). A waiter with a weaker
// acquire (fence.acq_rel, ld.acquire) pairs with no release here: a release
// pattern is a fence followed by a strong write in one thread's program
// order, and the signalling thread has no fence of its own.
//
// This file finds the barrier pairs; release-missing decides the rest (the
// scopes, the waiters' fences, no published write between the barriers).
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "model/MemoryEffect.h"
#include "model/Program.h"

namespace fenceline::model {

struct ScFenceSpan {
  InstId opening = -1;   // the whole-CTA barrier every path to the closing one last passed
  InstId fence = -1;     // a fence.sc thread (0, 0, 0) executes between them
  Scope scope = Scope::Sys;  // the narrowest scope among the fences on thread (0, 0, 0)'s paths
};

class ScFenceSpans {
 public:
  explicit ScFenceSpans(const FunctionModel& fn);
  // The span that whole-CTA barrier `closing` ends: every path from the
  // function's entry to it last passed one and the same whole-CTA barrier
  // (no other barrier and no call between), and every path that thread
  // (0, 0, 0) can take between the two (its branches on the thread index
  // decided for it) executes a fence.sc after its last read that may observe
  // another block's write (a count's atomic). nullopt otherwise.
  std::optional<ScFenceSpan> spanClosedBy(InstId closing) const;
  // The barriers that close a span, sorted (a walk's `mayStop`).
  const std::vector<InstId>& closingBarriers() const { return closing_; }

 private:
  std::optional<ScFenceSpan> compute(InstId closing) const;
  InstId openingBarrier(InstId closing) const;
  std::optional<ScFenceSpan> threadZeroFences(InstId opening, InstId closing) const;

  const FunctionModel& fn_;
  std::vector<InstId> closing_;
  std::unordered_map<InstId, ScFenceSpan> spans_;
};

}  // namespace fenceline::model
