// Which threads write the word a thread reads. A counter kept per warp in
// shared memory (`count[tid >> 5]`, cuVS's search queues) is written by lane 0
// of its warp and read by lane 0 again, each under its own `tid & 31 == 0`
// test (nvcc computes the lane again at each use): two branches, one thread.
// A read that no thread but the reader can have written is ordered with every
// write of that word by the reader's program order: it needs no barrier.
//
// The guards of an access (its own predicate and the branch edges that every
// path to it takes, not a loop's exit) are evaluated for each thread index
// (model/ThreadDecidedBranches.h); a guard not decided for a thread (a data
// test) leaves the thread in. The address's terms that the thread index
// computes (`(tid >> 3) & 12`, %tid.x itself) are evaluated the same way; the
// other terms (the block's position, parameters, values no thread index
// reaches) must be the same on both sides and are one value for the threads
// of one block. Thread indices run over the block the function declares
// (.maxntid / .reqntid); a dimension of %tid the function never reads is one
// thread wide (a kernel that ignores threadIdx.y is launched without it, as
// MemoryAnalysis::blockSlices takes the grid's dimensions).
#pragma once

#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// One guard of an instruction: the predicate, where it is read, and the value
// it must have for the instruction to run.
struct ThreadGuard {
  InstId at;
  ValueReg predicate;
  bool value;
};

// The guards of `inst` on the way from the function's entry: its own
// predicate, and each branch whose edge enters a block that dominates it
// (not a loop's exit), with the value that edge needs.
std::vector<ThreadGuard> guardsOf(const FunctionModel& fn, InstId inst);

// Every thread that may execute `read` reads a word that no other thread
// that may execute `write` writes (and the reader is such a thread, or none
// writes it). Not decided (false) where an address term or a guard's
// thread-index part cannot be evaluated, the two addresses differ in a term
// the threads share, or a thread index leaves the declared block.
bool readsOnlyOwnWrites(const FunctionModel& fn, InstId write, InstId read);

}  // namespace fenceline::model
