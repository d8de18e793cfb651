// Spin loops: natural loops that wait for a value another thread writes.
// acquire-missing, release-missing, scope-too-narrow and barrier-reuse all
// start from them (the poll of a flag, the counter of a barrier).
//
// A loop is a spin loop when one of its exit branches depends, through
// register computations (setp, vote, not, selp, and/or/xor, bar.red, moves,
// arithmetic), on a load or atomic of global or generic memory inside the
// loop (the poll), and:
//  - a shared-memory load on that way is followed back to the store of the
//    same word earlier in the iteration (one thread polls and broadcasts what
//    it saw through shared memory and a barrier, as Triton compiles scalar
//    atomics and volatile loads): the poll is the global read behind it;
//  - the exit condition compares the polled value with values that do not
//    change across iterations (a compare-and-swap update loop compares with
//    the previous iteration's value: not a spin, also when that value is kept
//    in a slot of the thread's local memory that the loop rewrites, as
//    libcu++'s compare_exchange keeps `expected`; nor is one whose CAS, run on
//    every trip, compares with this trip's read of the same word and whose
//    exit tests only that the CAS succeeded: cuDF's 128-bit sums, issue 34
//    shape O); a register that the
//    reaching definitions also bring from outside the loop is this
//    iteration's when every path from the header that a thread can take
//    defines it (paths taking opposite edges of one predicate are none:
//    libcu++'s local-or-global load, issue 34 NCCL shape U);
//  - the polled address does not change across iterations (pointer chasing
//    is not a spin);
//  - the loop writes no global or generic memory except through a polling
//    atomic (a work queue that hands out indices and writes results is not a
//    spin), or after the observation (afterObservation: a spin lock's
//    critical section and unlock, on the iteration that leaves).
#pragma once

#include <vector>

#include "model/Program.h"

namespace fenceline::model {

struct SpinLoop {
  int32_t loop = -1;                 // index into FunctionModel::loops
  std::vector<InstId> polls;         // loads / atomics the exit depends on (sorted)
  std::vector<InstId> exitBranches;  // the branches that leave the loop on the polled value
  std::vector<InstId> comparisons;   // setp instructions on the way from a poll to an exit branch
  // Per exit branch (same order): the block that leaves the loop on it, and
  // the polls its test depends on (sorted).
  std::vector<BlockId> exitBlocks;
  std::vector<std::vector<InstId>> exitPolls;
  // Atomics before the loop that repeat a polling atomic and decide whether
  // the loop is entered: its first trip, peeled by the compiler (sorted;
  // model/PeeledPolls.h). Not polls themselves: what follows them is not
  // inside the loop.
  std::vector<InstId> peeledPolls;

  bool containsBlock(const FunctionModel& fn, BlockId block) const;
  bool contains(const FunctionModel& fn, InstId inst) const;
};

std::vector<SpinLoop> findSpinLoops(const FunctionModel& fn);

// `block` lies inside the spin loop on the way out of it: it is entered only
// on a branch edge that tests the value `poll` returned (setp.eq/ne with a
// constant, not.pred) with a condition that implies one of the loop's exits
// (a spin lock whose critical section is inside the loop: `while (!done) {
// if (atomicCAS(lock, 0, 1) == 0) { ...; done = true; } }`). What runs there
// comes after the observation, like code after the loop.
bool afterObservation(const FunctionModel& fn, const SpinLoop& spin, InstId poll, BlockId block);

// Would the spin leave on `value` in the polled word? Each exit edge's
// condition is read as a comparison (setp, through not.pred) of the value
// `poll` returned with an operand whose numbers the value analysis bounds (a
// constant, %nctaid.x in [1, 2^31)): No when every exit's condition fails
// for `value` whatever that operand is (a count reset to 0 where the waiters
// wait for it to reach gridDim.x), Yes when some exit's condition holds for
// it whatever that operand is, Unknown otherwise (an exit not read, an
// operand not bounded: a generation compared with a snapshot). When that
// reading is Unknown, a second one may still answer No: no exit leaves *on
// the value* (exits another poll alone decides, and.pred/or.pred operands
// that do not depend on the poll, an abort flag, are left out; the compared
// register may also come from the local branch of a local-or-global load).
enum class ExitOn : uint8_t { No, Yes, Unknown };
ExitOn exitOnValue(const FunctionModel& fn, const SpinLoop& spin, InstId poll, int64_t value);

// Does the value of `reg` at `at` depend (through register computations,
// not through memory) on the value produced by one of `sources`?
bool valueDependsOn(const FunctionModel& fn, ValueReg reg, InstId at, const std::vector<InstId>& sources);

// The spin leaves from `from` to `to` (a block outside the loop) on a test
// that does not read `poll`'s value: that exit's branch depends on other polls
// of the loop only (a completion-queue wait that reads the next entry and a
// count other threads keep, and leaves on either: issue 34, NVSHMEM shape X).
// What lies past such an exit alone does not follow an observation of `poll`:
// on every path to it, the test of `poll`'s value took the edge that stays.
// False for an exit whose test was not traced to its polls.
bool leavesWithoutPoll(const FunctionModel& fn, const SpinLoop& spin, InstId poll, BlockId from, BlockId to);
// Some exit of the spin is such an exit for `poll`.
bool hasExitWithoutPoll(const SpinLoop& spin, InstId poll);

// A load or atomic of global or generic memory that reads (a poll candidate).
bool readsGlobalMemory(const FunctionModel& fn, InstId inst);
// A store or atomic that writes global or generic memory.
bool writesGlobalMemory(const FunctionModel& fn, InstId inst);

}  // namespace fenceline::model
