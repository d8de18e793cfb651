// Which blocks of one FunctionModel's CFG a block reaches, answered in
// constant time. The proxy checks ask "does this access reach that copy?"
// for every pair they consider; a walk per question made them quadratic in
// the function's size on unrolled pipelines. Here the CFG is condensed into
// its strongly connected components once (a loop is one component) and every
// component gets the bit set of the components it reaches, built in reverse
// topological order: |components|^2 bits in all. When that would exceed a
// fixed budget (a function of tens of thousands of blocks), each question
// falls back to a walk over the components. Immutable once built: checks
// running on several threads may share it.
#pragma once

#include <cstdint>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

class BlockReachability {
 public:
  explicit BlockReachability(const FunctionModel& fn);
  // A path of at least one edge leads from `from` to `to` (so `from` reaches
  // itself only around a loop).
  bool reaches(BlockId from, BlockId to) const;
  // Within the budget: reaches() is a bit test, else a walk (callers that
  // ask many questions from one source may keep their own walks).
  bool hasClosures() const { return !closure_.empty() || componentOf_.empty(); }

 private:
  bool bit(const std::vector<uint64_t>& set, size_t component) const;
  bool walkReaches(int32_t from, int32_t to) const;

  const FunctionModel& fn_;
  std::vector<int32_t> componentOf_;   // per block
  std::vector<char> cyclic_;           // per component: a cycle inside it (a loop, a self edge)
  std::vector<std::vector<int32_t>> successors_;  // per component, other components
  size_t words_ = 0;                   // per bit set
  // Per component: the components reachable through at least one edge;
  // empty when over the budget.
  std::vector<std::vector<uint64_t>> closure_;
};

}  // namespace fenceline::model
