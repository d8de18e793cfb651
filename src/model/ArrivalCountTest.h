// Whether an equality test on a counting atomic's returned value can decide
// "every other block has arrived" (issue 30's last-block idiom, asked by the
// protocol model's tickets), or tests a queue reservation instead (issue 34,
// shape T: NCCL's work queues).
//
// A last-block ticket compares what the atomic returned with the number of
// arrivals that means "all": `gridDim.x - 1`, a split count, a per-tile count
// read from a parameter. That number is fixed for the launch before any block
// counts: the same for every thread of the grid, or of the block (a count per
// tile picked by the block's position) (UniformModes' Grid or Block level).
// Two equalities look alike and count nothing:
// - a test against the all-ones value of the compared width (`slot == ~0`):
//   the "no slot" sentinel of a reservation, a value no count of blocks
//   reaches;
// - a test against a value read at run time (`atomicCAS(&posted, slot, slot
//   + 2) != slot`, a counter loaded in a loop): the thread waits for its turn,
//   and what observes the other threads is that read, not the reservation.
// A test against 0 is not a count of the others either (the first arriver).
#pragma once

#include "model/Program.h"

namespace fenceline::model {

class UniformModes;

// `setp` is an eq/ne comparison of two operands one of which is a count fixed
// for the launch (above) other than 0 and all-ones.
bool comparesWithArrivalCount(const FunctionModel& fn, const UniformModes& modes, InstId setp);

}  // namespace fenceline::model
