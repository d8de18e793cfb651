// What the branch edges on the way into a block say about predicates, and a
// later predicate evaluated from that (session 27, cuDSS's work-counter
// waits). A poll guarded by several tests (`if (tid == 0 && need >= 1)`, then
// `if (seen < need)` before the loop) runs only where each test went its way;
// the fence after it is skipped on a predicate recomputed from the same
// operands (`!(tid == 0 && (r > last || need >= 1))`, the thread index read
// again, the parameter loaded again). Every trip that polls also fences, but
// no single test on the way in is the fence's predicate or implies it.
//
// The facts: climbing from an edge through blocks entered from one
// predecessor, each conditional edge gives its guard's value; an or.pred
// known false, an and.pred known true and a not.pred give their operands'
// values. A predicate is then evaluated from its definition (not.pred,
// and.pred, or.pred, mov) down to values equal to a fact's: the same register
// whose one definition gave both (executed once per trip: it dominates both
// points, and no loop holds it but the loops around the trip), or the same
// computation (same opcode and modifiers over equal operands: the same
// constant, the same thread or block index, the same kernel parameter loaded
// twice). Anything else is unknown.
#pragma once

#include <optional>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// `reg` has `value` when `at` executes.
struct PredicateFact {
  ValueReg reg = -1;
  bool value = false;
  InstId at = -1;
};

class EdgeFacts {
 public:
  // `tripLoop`: the loop whose trips are "one trip" (a definition inside it
  // or a loop within it runs more than once per trip); -1 for none.
  EdgeFacts(const FunctionModel& fn, int32_t tripLoop) : fn_(fn), tripLoop_(tripLoop) {}

  // The facts on every path through the edge from -> to: its condition and
  // those of the edges above it while the block entered has one predecessor
  // (a few edges at most), with the operands they decide.
  std::vector<PredicateFact> onEdgeChain(BlockId from, BlockId to) const;

  // The value of predicate `reg` where `use` reads it, given `facts`; nullopt
  // when they do not decide it.
  std::optional<bool> evaluate(const std::vector<PredicateFact>& facts, ValueReg reg, InstId use) const;

 private:
  void addWithOperands(std::vector<PredicateFact>& facts, PredicateFact fact, int depth) const;
  std::optional<bool> evaluate(const std::vector<PredicateFact>& facts, ValueReg reg, InstId use, int depth) const;
  // The one definition of `reg` that reaches `at` and gives the same value
  // everywhere on the trip (onceOnTrip); -1 otherwise.
  InstId tripDefinition(ValueReg reg, InstId at) const;
  bool onceOnTrip(InstId definition, InstId at) const;
  bool sameValue(ValueReg a, InstId atA, ValueReg b, InstId atB, int depth) const;
  bool sameOperand(InstId a, InstId b, size_t k, int depth) const;

  const FunctionModel& fn_;
  int32_t tripLoop_;
};

}  // namespace fenceline::model
