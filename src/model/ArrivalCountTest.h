// Whether an equality test on a counting atomic's returned value can decide
// "every other block has arrived" (issue 30's last-block idiom, asked by the
// protocol model's tickets), or tests a queue reservation instead (issue 34,
// shape T: NCCL's work queues).
//
// A last-block ticket compares what the atomic returned with the count of
// arrivals that means "all": `gridDim.x - 1`, a split count, a per-tile count
// read from a parameter, or the end of the episode computed from the returned
// value itself (a reusable barrier's `old + add == (old & ~(episode - 1)) +
// episode`). One side is fixed by the launch (constants, parameters, the
// launch shape, the block's position: UniformModes' Grid or Block level), or
// both are computed from the launch and the counting atomics' own returned
// values alone. Two equalities look alike and count nothing:
// - a test against the all-ones value of the compared width (`slot == ~0`):
//   the "no slot" sentinel of a reservation, a value no count of blocks
//   reaches;
// - a test against a value read from memory at run time (`atomicCAS(&posted,
//   slot, slot + 2) != slot`, a counter loaded in a loop): the thread waits
//   for its turn, and what observes the other threads is that read, not the
//   reservation.
// A test against 0 is not a count of the others either (the first arriver).
//
// The equality must also meet the count itself: the first comparison that the
// returned value reaches on its way to a branch is the one that decides
// whether the branch tests a count of arrivals. After a comparison, what
// flows on is its outcome (a predicate, turned into bits by `selp` and
// gathered by `or`), not the count: an equality of such bits with a constant
// (`(seen & 3) == 2`, "lower than some, higher than none" for a hash of the
// reserved row, issue 34's cuSPARSE `multihash_step`) tests decisions taken
// on the value, not how many blocks arrived. Comparisons after the equality
// (its outcome handed to the block through shared memory, tested `!= 0`)
// test that outcome and leave it a ticket.
#pragma once

#include <functional>

#include "model/Program.h"

namespace fenceline::model {

class UniformModes;

// `setp` is an eq/ne comparison (above) of a count of arrivals; `counting`
// says which instructions are counting atomics (the candidates' returned
// values).
bool comparesWithArrivalCount(const FunctionModel& fn, const UniformModes& modes, InstId setp,
                              const std::function<bool(InstId)>& counting);

// The instruction compares values (`setp`, `set`): its result is an outcome,
// no longer the value it compared (above).
bool isComparison(const Inst& inst);

}  // namespace fenceline::model
