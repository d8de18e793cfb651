// Internal to the program model: the stages buildProgram runs, in order, on
// each function (Program.cpp calls them top to bottom). Not for checks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/Limits.h"
#include "model/Program.h"

namespace fenceline::model::detail {

// How control leaves one instruction of the flat body.
struct Flow {
  std::vector<InstId> targets;  // jump targets (instruction indices; size() = past the end)
  bool jumps = false;           // bra / brx / inlined ret / guarded inlined call
  bool exits = false;           // ret / exit / trap of the function itself
  bool conditional = false;     // guarded: may also fall through
};

// Inliner.cpp: fills fn.instructions (operands remapped, effects classified,
// labels as target instruction indices), registerNames/Types and
// hasUnanalyzedCalls; returns the control flow of each instruction. Draws the
// inlined instructions from `budget`; throws LimitExceeded past a limit.
std::vector<Flow> flatten(FunctionModel& fn, const Limits& limits, InliningBudget& budget);

// Cfg.cpp: basic blocks, successors, predecessors, blockOf; rewrites label
// operands from instruction indices to block ids.
void buildBlocks(FunctionModel& fn, const std::vector<Flow>& flow);

// Dominators.cpp: idom, ipostdom and the tree numbers behind dominates().
void computeDominators(FunctionModel& fn);

// Loops.cpp: natural loops, nesting, exits, latches, loopOf.
void computeLoops(FunctionModel& fn);

// LocalSlots.cpp: Inst::boundStore of a load of a local-memory slot that one
// store, on every path before it, wrote and nothing else can reach.
void bindLocalSlots(FunctionModel& fn);

}  // namespace fenceline::model::detail
