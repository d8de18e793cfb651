// Branches that a poll's execution decides on its own trip (session 26,
// cuDSS's shape J). A loop trip computes a predicate once (`p = odd(i) && i <
// n`), polls only under it (the poll's guard is built from registers zeroed on
// the trip and set only on the side where p holds), and later skips the
// acquire fence on !p: every trip that polls also fences. A path-insensitive
// walk from the poll takes the fence-free side; that path runs on no trip.
//
// The rule: a conditional branch on a predicate G that has one definition D
// in the function goes one way after the poll, until the path starts another
// trip of a loop around the spin, when every edge into the spin loop from
// outside carries a condition (its branch's predicate value, up through
// straight-line blocks) that implies that value of G, and no path from such
// an edge to the poll, or from the poll within its trip, passes D. The
// implication reads the condition's definitions back: not.pred, and.pred,
// or.pred, an `or` of integers (nonzero when either is), a mov of a
// register, a comparison of a register with 0 (its value then says whether
// the register is 0), a constant that cannot give the value, and a
// definition that every path from D reaches only through an edge where G
// has that value (it runs only on such trips); each definition reaching its
// use with no path through D between. Anything else implies nothing.
//
// Session 27 (cuDSS's factorize_v3_ker): when that reading decides nothing,
// G is evaluated from its own definition with the facts of each edge's chain
// of guards into the spin loop (model/EdgeFacts.h): a fence skipped on
// `tid != 0 || (r <= last && need < 1)`, recomputed after polls entered under
// `tid == 0 && need >= 1` and `r > last && tid == 0`. Each edge into the spin
// loop must decide G the same way.
#pragma once

#include <functional>
#include <vector>

#include "model/Program.h"
#include "model/SpinLoops.h"

namespace fenceline::model {

// findReachable(fn, observe, target, stop, mayTarget, mayStop) on the paths
// that can follow the observation by poll `observe`: at a branch the poll decides, only
// the side its trip takes, until the walk enters a loop around the spin
// again (the next trip). `mayTarget` and `mayStop` (sorted) hold every instruction
// where `target` or `stop` may hold.
InstId findReachableOnPollTrip(const FunctionModel& fn, const SpinLoop& spin, InstId observe,
                               const std::function<bool(InstId)>& target, const std::function<bool(InstId)>& stop,
                               const std::vector<InstId>& mayTarget, const std::vector<InstId>& mayStop);

}  // namespace fenceline::model
