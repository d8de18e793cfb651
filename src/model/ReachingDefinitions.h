// Reaching definitions for registers that PTX assigns more than once (loop
// counters, values merged at a join, inline-asm outputs). A use whose block
// is reached by exactly one of its register's definitions reads that one;
// the value analysis (Values.cpp) then stays precise where a flow-insensitive
// join would blur `mov r, 0 ... mov r, x` into "unknown". Computed per
// definition by a walk that stops where its register is written again;
// skipped (everything "may reach") past a size bound.
#pragma once

#include <cstdint>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

class ReachingDefinitions {
 public:
  // defs: per register, the instructions that write it, ascending.
  ReachingDefinitions(const FunctionModel& fn, const std::vector<std::vector<InstId>>& defs);
  // Does definition `def` reach the entry of `block`? True when not tracked.
  bool reachesEntry(InstId def, BlockId block) const;

 private:
  std::vector<int32_t> bitOf_;    // per instruction: its definition's number, or -1
  bool tracked_ = false;          // false: past the size bound, everything may reach
  std::vector<uint32_t> start_;   // per definition number: its first entry in reach_
  std::vector<BlockId> reach_;    // the blocks each definition reaches, sorted per definition
};

}  // namespace fenceline::model
