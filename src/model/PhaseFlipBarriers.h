// A grid barrier whose phase is the sign bit of its counter (session 28,
// shape P5 of the held-out look: cuDNN's batch-norm kernels; the scheme of
// CUDA's cooperative groups, cooperative_groups/details/sync.h).
//
// One thread of each of n blocks arrives with an atomic add on the counter:
// the master adds 0x80000001 - n (0x80000000 - (n - 1)), every other block 1.
// A use adds 0x80000000 in all: bit 31 flips when, and only when, the last of
// the n arrives, and the low bits come back to where they were. The wait
// spins until bit 31 differs from its value at the block's own arrival: the
// arrival's returned value (cooperative groups) or a load of the counter
// before the arrival (cuDNN: `old = ld.volatile [bar]; membar.gl; atom.add`).
// The barrier is reusable without a reset: a sense-reversal barrier.
//
// Recognized from the values, not from names:
//  - the wait: a comparison of the spin tests bit 31 of `polled ^ P` (a
//    signed comparison with 0 or -1, `setp.gt.s32 %p, %x, -1`, or an and
//    with 0x80000000 compared with 0), where the polled value comes from the
//    poll and P is either the arrival's returned value or a load of the same
//    word that dominates the arrival, with no other arrival on the word
//    between them; the arrival dominates the poll and is on the same word;
//  - the arrival's amount: its possible values (through selp, mov and the
//    definitions that reach it) are 1 and 0x80000001 - X for one term X (or a
//    constant 0x80000001 - k, 1 <= k <= 2^24), both present. A master that
//    adds 1 like the others, or 0x80000000 - X, is no phase flip.
// Presumed, as for any grid barrier's threshold: X is the number of arriving
// blocks, one thread of each arrives, and one block is the master.
//
// Phases: the k-th arrival of a block is in the barrier's k-th phase (a block
// arrives again only after its wait saw the previous phase complete, which
// takes all n blocks). An arrival therefore releases the waits of its own
// phase. The wait of another use (another arrival's site) is of the same
// phase only where blocks reach different barrier sites at the same count of
// uses, which the PTX alone does not decide: such a pairing is undecided
// (release-missing's "other-phase" link, strict tier).
#pragma once

#include "model/Program.h"

namespace fenceline::model {

class ProtocolModel;

// The arrival whose phase comparison `compare` (of the spin that polls with
// `poll`; its operand `polled` carries the polled value) waits to see flip,
// as above (the wait's side only; addsPhaseFlip is the arrival's); -1 when
// the comparison is not such a test.
InstId phaseFlipArrival(const FunctionModel& fn, InstId compare, int polled, InstId poll);

// The arrival adds 1 or, for the master, 0x80000001 - X, as above.
bool addsPhaseFlip(const FunctionModel& fn, InstId arrival);

// The arrival of the phase-flip use whose wait polls with `poll` (any
// comparison of its spin; the arrival adds a phase flip), or -1.
InstId phaseFlipUseOfPoll(const ProtocolModel& ctx, InstId poll);

// `signal` is a phase-flip arrival and `poll` the wait of another use of a
// phase-flip barrier on the same word: the pair is of one phase only where
// blocks reach different barrier sites at the same count (undecided).
bool waitOfOtherPhaseFlipUse(const ProtocolModel& ctx, InstId signal, InstId poll);

}  // namespace fenceline::model
