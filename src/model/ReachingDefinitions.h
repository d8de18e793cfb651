// Reaching definitions for registers that PTX assigns more than once (loop
// counters, values merged at a join, inline-asm outputs). A use whose block
// is reached by exactly one of its register's definitions reads that one;
// the value analysis (Values.cpp) then stays precise where a flow-insensitive
// join would blur `mov r, 0 ... mov r, x` into "unknown". Classic bit-vector
// dataflow over blocks; skipped (everything "may reach") when the bit
// matrix would be too large.
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
  std::vector<int32_t> bitOf_;  // per instruction: its bit, or -1
  size_t words_ = 0;
  std::vector<uint64_t> in_;    // blocks x words; empty = not computed
};

}  // namespace fenceline::model
