// The instructions that lie on some CFG path between two instructions: a path
// from `from` to `to` passes them, and passes neither `from` nor `to` again
// on the way (a loop around both does not put the rest of its body between
// them). slot-reuse and tensormap-war ask it to tell "some wait lies on a way
// from the hand-off to the rewrite" (the writer may have waited, on a path
// the analysis cannot rule out: a first-iteration skip `if (t > 0) wait()`, a
// drain loop of zero trips) from "no wait lies on any way" (the rewrite is
// decidedly unordered).
#pragma once

#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// One entry per instruction: true when it lies between `from` and `to`.
// Two linear walks (forward from `from`, backward from `to`).
std::vector<char> instructionsBetween(const FunctionModel& fn, InstId from, InstId to);

}  // namespace fenceline::model
