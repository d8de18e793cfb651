// Where an Ampere (non-bulk) cp.async's writes of shared memory take effect.
// The PTX ISA ("Data Movement and Conversion Instructions: cp.async") treats
// cp.async as a weak memory operation performed in the generic proxy; only
// the bulk copies are async-proxy operations, and only their completion
// carries an implicit generic-async proxy fence. Its writes are made visible
// to a thread only when the copy completes ("cp.async.wait_group /
// cp.async.wait_all"): at the issuing thread's cp.async.wait_all, at its
// cp.async.wait_group that covers the copy's group, or, for the threads that
// wait on it, when an mbarrier phase that tracks the copy completes
// (cp.async.mbarrier.arrive[.noinc] by the issuing thread, then
// mbarrier.test_wait / try_wait). A proxy fence of the writes therefore
// counts only after such a point; proxy-raw and proxy-war start their fence
// search there instead of at the copy.
#pragma once

#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// cp.async.ca / .cg .shared.global: the non-bulk copy, generic proxy.
bool isAmpereCopy(const FunctionModel& fn, InstId inst);

// The points where each Ampere copy's writes become visible, in program
// order: the waits of the issuing thread that settle it (model/BulkGroups.h,
// non-bulk groups), and every mbarrier wait whose barrier may be one that a
// cp.async.mbarrier.arrive of the issuing thread, reached while the copy is
// pending, makes track it. The walk of the issuing thread ends at that
// arrive (the copy's completion is then the barrier's). Empty when nothing
// completes the copy (it is never read by this kernel, or it is completed
// in a function that is not inlined). Computed once per run of copies that
// share them: copies of one block with the same guard and no commit, wait or
// cp.async.mbarrier.arrive between them (an unrolled load of one stage issues
// dozens); the waits of each copy arrive's barrier are found once.
class CopyCompletions {
 public:
  explicit CopyCompletions(const FunctionModel& fn);
  const std::vector<InstId>& copies() const { return copies_; }
  // The completion points of an Ampere copy; empty for any other instruction.
  const std::vector<InstId>& of(InstId copy) const;

 private:
  std::vector<InstId> copies_;
  std::vector<int> run_;                        // per copy (index into copies_): its run
  std::vector<std::vector<InstId>> points_;      // per run
  std::vector<InstId> none_;
};

}  // namespace fenceline::model
