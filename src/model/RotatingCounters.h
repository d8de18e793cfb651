// A grid barrier over several counters taken in turn (session 27, MSCCL++'s
// shape RC: its `DeviceSyncer`). Each use reads a turn word t, arrives on
// counter f(t) (a fixed threshold: the block count), zeroes another counter
// ahead of its use, and after the wait stores the turn it used; the next use
// reads that turn back and takes the counter after it. A loop that reaches
// the barrier again arrives on another word, and a word is taken again only
// after a use that zeroed it. barrier-reuse's "the same counter on the next
// trip" does not hold for it.
//
// The rule, decided from the PTX by evaluating the arithmetic:
//  - the arrival's address is computed, through register arithmetic alone
//    (add, sub, mul, mad, shifts, and/or/xor, rem/div, cvt, cvta, mov), from
//    one load of a global word W (the turn) in the same trip and from
//    symbols or kernel parameters (bases, each a distinct number);
//  - a store to W of a register value V that this arithmetic computes is on
//    every path from the arrival back to itself, and the turn load is on every
//    path from that store back to the arrival: the next use reads V;
//  - V is bounded by its own computation (`x % d` as rem or as nvcc's
//    multiply-by-inverse with a verified magic number, `x & m`, `min`), so
//    the turns after the first are finitely many (at most 256), and the
//    arrival's address can be computed from V alone (the first use's
//    counter is then named by the turn it stores, whatever W held at launch;
//    where nvcc computes it from the loaded turn directly, as it does for
//    `(t + 1) % 2`, the rule does not hold);
//  - every write of the kernel that may touch W or the counters (the memory
//    model cannot tell them apart, through the same root object) is one of
//    these barriers' (a use with the same tables on the same W: another
//    inlined copy). When W is a `__device__` variable, a write through a
//    pointer the analysis cannot name is taken to be elsewhere: a pointer
//    into the variable would come from the host, which the PTX does not show;
//    when W is reached through a parameter or a loaded pointer, such a write
//    keeps the rule from holding. An opaque call does too.
// Then, from every possible first turn, the uses are simulated for 2n + 2
// trips (n turns): a use zeroes the counters its zeroing stores name (those
// between the turn load and the arrival count before the arrival; those
// between the arrival and the turn store after it), then arrives; a use that
// arrives on a counter arrived on since it was last zeroed is a reuse, and
// the rule does not hold. Stores elsewhere are not counted as zeroing (fewer
// resets, more reuse: the twin that zeroes the wrong counter still fires).
//
// Presumed, as for any barrier's first use: the counters start at zero. And
// every block of one use reads the same turn (each stores the turn of the
// counter all of them waited on, after all arrived): a barrier whose blocks
// disagree on the turn is broken in a way barrier-reuse does not name.
#pragma once

#include "model/Program.h"

namespace fenceline::model {

// `arrival` is the arrival of a barrier over counters taken in turn, as
// above: no use of it takes a counter again before it is zeroed.
bool takesCountersInTurn(const FunctionModel& fn, InstId arrival);

}  // namespace fenceline::model
