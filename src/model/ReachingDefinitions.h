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
  // Of one register's definitions (`defs`, as given to the constructor), the
  // one that alone reaches the entry of `block`; -1 when none or several do,
  // or when nothing is tracked and there are several.
  InstId onlyReaching(const std::vector<InstId>& defs, BlockId block) const;

 private:
  void buildDense(const FunctionModel& fn, const std::vector<std::vector<InstId>>& defs,
                  const std::vector<std::vector<std::pair<ValueReg, InstId>>>& writes, int32_t bits);

  std::vector<int32_t> bitOf_;    // per instruction: its definition's number, or -1
  bool tracked_ = false;          // false: past the size bound, everything may reach
  size_t blockCount_ = 0;
  // Far-reaching definitions: the classic bit matrix instead (blocks x words).
  bool dense_ = false;
  size_t words_ = 0;
  std::vector<uint64_t> in_;
  std::vector<uint32_t> start_;   // per block: its first entry in reaching_
  std::vector<int32_t> reaching_; // per block, the definition numbers reaching its entry, ascending
  std::vector<InstId> defOfBit_;  // per definition number: the instruction
};

}  // namespace fenceline::model
