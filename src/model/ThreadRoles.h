// Which threads execute a block: all threads, one lane per warp, one thread per
// block, one thread of the grid, or some data-dependent subset. Derived from
// branch conditions on %tid/%laneid/%ctaid (including elections computed far
// from their use), elect.sync, and predicates on instructions.
#pragma once

#include "model/Program.h"

namespace fenceline::model {

enum class ThreadSet : uint8_t {
  All,          // every thread that reaches the function
  OneLane,      // at most one lane of each warp (laneid == c, tid % 32 == c, elect.sync)
  OneThread,    // at most one thread of the block (tid == c)
  OneWarp,      // one warp of the block (tid / 32 == c)
  OneBlockThread,  // one thread of one block of the grid (tid == c && ctaid == c)
  Subset,       // some data- or id-dependent subset (warp-role branches, bounds checks)
};

class ThreadRoles {
 public:
  explicit ThreadRoles(const FunctionModel& fn);
  // The narrowest set that executes the block, considering every guarding branch.
  ThreadSet blockSet(BlockId block) const;
  // Same, for an instruction (adds its own @p guard).
  ThreadSet instructionSet(InstId inst) const;
  // Is the predicate register an election (true for at most one lane / thread)?
  ThreadSet predicateSet(ValueReg predicate, bool negated, InstId at) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

std::string_view toString(ThreadSet);

}  // namespace fenceline::model
