// The first trip of a spin loop, peeled out of it by the compiler: an atomic
// before the loop that repeats one of the loop's polling atomics.
//
// `while (atomicCAS_system(lock, 0, 1) != 0) __nanosleep(100);` compiles
// (nvcc 13, cuOpt's lock) to `atom.sys.cas [lock], 0, 1` once, a branch that
// skips the loop when it returned 0, and the same CAS again inside a rotated
// `nanosleep` loop. The atomic before the loop is the waiter's first attempt
// at the same acquisition: it writes the taken value only where it read the
// free one, and no waiter leaves its loop on it (they leave on the unlock's
// store). Like the loop's own poll it is no signal (ProtocolModel::
// isSignalCandidate), so it neither publishes the thread's earlier writes nor
// shows, by its .sys scope, a partner off the GPU (a waiter's over-strong
// scope, docs/checks/scope-too-narrow.md).
//
// Recognized from the PTX, whatever the layout: a read-modify-write outside
// the loop with the poll's opcode and modifiers, on the same word, with the
// same operands after the address (constants, or values the identity engine
// equates), whose returned value decides the branch that enters the loop (the
// conditional branch of a block outside the loop that leads to the loop's
// header, directly or through blocks with a single predecessor).
#pragma once

#include <vector>

#include "model/Program.h"
#include "model/SpinLoops.h"

namespace fenceline::model {

// The peeled first attempts of `spin`'s polling atomics (sorted). `atomics`
// lists the function's read-modify-writes of global or generic memory that
// return a value (the candidates, gathered once per function).
std::vector<InstId> findPeeledPolls(const FunctionModel& fn, const SpinLoop& spin, const std::vector<InstId>& atomics);

}  // namespace fenceline::model
