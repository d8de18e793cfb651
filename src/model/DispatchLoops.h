// An interpreter's dispatch loop (session 27, MSCCL++'s shape LP: its
// `executionKernel` runs an execution plan, one operation per trip, chosen by
// an op code it reads from the plan on each trip). Two instructions on
// different arms of that dispatch run in one order or the other, or never
// both, as the plan says: the plan is run-time data, not in the PTX.
//
// A partner model that gathers "the writes before the signal" as the writes
// from which a signal is reachable takes, in such a kernel, every operation's
// writes for data published by every other operation's signal (an NVLS
// reduction's `multimem.st` for the payload of an LL packet put several ops
// later, or never). That the partner writes them before it signals is then a
// statement about the plan, which the PTX does not decide.
//
// The rule: `from` reaches `to` only through the dispatch of a loop L when
//  - both lie in L, and every path from `from` to `to` passes L's header (a
//    new trip: nothing orders them within one);
//  - a conditional branch of L separates them: one of its edges leads to a
//    block that dominates `from`'s, the other to one that dominates `to`'s
//    (they are on different arms);
//  - that branch's predicate is computed from a value loaded from memory
//    inside L (an op code read on each trip), through register computations.
// A loop whose arms are chosen by its counter, a parameter or the thread
// index is no dispatch: the PTX decides its order (a rotated loop that
// writes on one trip and signals on the next keeps its order).
#pragma once

#include "model/Program.h"

namespace fenceline::model {

bool reachesOnlyThroughDispatch(const FunctionModel& fn, InstId from, InstId to);

}  // namespace fenceline::model
