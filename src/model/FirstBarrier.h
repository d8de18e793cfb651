// The block's first barrier: what a whole-CTA barrier orders for every
// thread of the block whichever thread it is. A write that no path from any
// whole-CTA barrier reaches (the block's initialization, before its first
// `__syncthreads()`) happens before the block's first barrier completes, in
// the writing thread; a read that every path from the function's entry
// reaches only through a whole-CTA barrier comes after some barrier's
// completion in the reading thread. A whole-CTA barrier (bar.sync with no
// thread count: isWholeCtaBarrier) completes only when every thread of the
// block has arrived, and the writer arrives at each one after its write: the
// write is visible to the read (barriers order memory among the threads of
// the CTA). Other blocks' threads take no part: this orders a partner of
// the reader's own block only.
#pragma once

#include <vector>

#include "model/Program.h"

namespace fenceline::model {

class FirstBarrier {
 public:
  explicit FirstBarrier(const FunctionModel& fn);
  // A thread of the block executes `write` only before its first whole-CTA
  // barrier, and `read` only after some whole-CTA barrier.
  bool orders(InstId write, InstId read) const;

 private:
  std::vector<char> afterBarrier_;   // reached from some whole-CTA barrier (or a call)
  bool anyBarrier_ = false;
  std::vector<char> beforeBarrier_;  // reached from the entry on a path with no whole-CTA barrier
};

}  // namespace fenceline::model
