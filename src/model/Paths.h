// Path queries over one FunctionModel's control-flow graph, at instruction
// granularity. Checks ask "is there a path from this access to that copy that
// misses every fence?"; these functions answer it with one linear walk over
// the blocks (loops allowed, every block visited at most once per query).
//
// They are per-thread program paths: an instruction that only an elected
// thread executes is still on the path of that thread. The checks decide what
// an election means (model/ThreadRoles.h).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// Some CFG path leads from `from` to `to` (at least one step: `to` executes
// after `from`; `to == from` holds only around a loop). Constant time when the
// model has its block reachability (buildFunctionModel builds it).
bool reachable(const FunctionModel& fn, InstId from, InstId to);

// Every CFG path from `from` to `to` passes an instruction for which `stop`
// holds (strictly after `from`, strictly before `to`). Vacuously true when
// `to` is unreachable from `from`.
bool everyPathPasses(const FunctionModel& fn, InstId from, InstId to,
                     const std::function<bool(InstId)>& stop);
// The same answer when `stop` can hold only at the instructions of
// `mayStop` (sorted): the walk tests those alone, a block at a time, instead
// of every instruction on the way (the checks' stops are fences and acquire
// points, a few instructions among thousands).
bool everyPathPasses(const FunctionModel& fn, InstId from, InstId to,
                     const std::function<bool(InstId)>& stop, const std::vector<InstId>& mayStop);

// everyPathPasses(fn, from, to, stop, mayStop) over the paths a thread can
// take: one that branches twice on a predicate no instruction wrote between
// the two branches goes the same way at both (a path skipping an operation
// under `@%p bra` and then running another under `@!%p`-free fall-through of
// the same `@%p bra` is no path). The walk keeps, per path, the predicates
// whose value its branches fixed; past `maxStates` (block, fixed predicates)
// pairs it gives up and answers false (not shown).
bool everyConsistentPathPasses(const FunctionModel& fn, InstId from, InstId to,
                               const std::function<bool(InstId)>& stop, const std::vector<InstId>& mayStop,
                               size_t maxStates);

// Walks forward from `from` (exclusive) and returns the first instruction met
// that satisfies `target` without passing an instruction satisfying `stop`;
// -1 when there is none. An instruction that satisfies both counts as a target.
// "First" is in breadth-first order over blocks, program order inside a block.
InstId findReachable(const FunctionModel& fn, InstId from,
                     const std::function<bool(InstId)>& target,
                     const std::function<bool(InstId)>& stop);
// The same answer when `target` can hold only at the instructions of
// `mayTarget` and `stop` only at those of `mayStop` (both sorted): the walk
// tests those alone, a block at a time (the checks' targets are the reads a
// wait guards, their stops acquire points).
InstId findReachable(const FunctionModel& fn, InstId from, const std::function<bool(InstId)>& target,
                     const std::function<bool(InstId)>& stop, const std::vector<InstId>& mayTarget,
                     const std::vector<InstId>& mayStop);

// Forward: every instruction satisfying `target` reachable from `from`
// (exclusive) without passing `stop`; the walk does not continue past a
// target, and ends once `limit` targets are found (the nearest, breadth first).
std::vector<InstId> findAllReachable(const FunctionModel& fn, InstId from,
                                     const std::function<bool(InstId)>& target,
                                     const std::function<bool(InstId)>& stop, size_t limit = SIZE_MAX);

// Backward: the nearest instructions before `to` (exclusive) that satisfy
// `target`, on paths that do not cross `stop`; the walk does not continue past
// a target. Sorted by InstId, no duplicates.
std::vector<InstId> findReachingBackward(const FunctionModel& fn, InstId to,
                                         const std::function<bool(InstId)>& target,
                                         const std::function<bool(InstId)>& stop);

// The same answer when `target` can hold only at the instructions of
// `mayTarget` and `stop` only at those of `mayStop` (both sorted): the walk
// tests those alone, a block at a time (release-missing's walk from every
// signal meets thousands of instructions, its targets are the global writes
// and its stops release points).
std::vector<InstId> findReachingBackward(const FunctionModel& fn, InstId to,
                                         const std::function<bool(InstId)>& target,
                                         const std::function<bool(InstId)>& stop,
                                         const std::vector<InstId>& mayTarget, const std::vector<InstId>& mayStop);

// The blocks a backward walk for some targets needs to enter: those that hold
// one of `targets` (every instruction that may satisfy the walk's `target`)
// or are reached from one. Found once per function and target kind; a walk
// given it skips the rest of the function (a walk per copy for the nearest
// mbarrier wait, in a function with none before it, crossed every block:
// issue 33).
// With direction -1, the blocks a forward walk needs: those that hold a
// target or reach one.
class TargetBlocks {
 public:
  TargetBlocks(const FunctionModel& fn, const std::vector<InstId>& targets, int direction = 1);
  bool live(BlockId b) const { return b >= 0 && static_cast<size_t>(b) < live_.size() && live_[b]; }

 private:
  std::vector<char> live_;
};

// findReachingBackward(fn, to, target, stop), entering only `blocks`' live
// blocks: the same answer when `target` holds only at the instructions
// `blocks` was built from.
std::vector<InstId> findReachingBackward(const FunctionModel& fn, InstId to,
                                         const std::function<bool(InstId)>& target,
                                         const std::function<bool(InstId)>& stop, const TargetBlocks& blocks);

// findAllReachable(fn, from, target, stop, limit), entering only the live
// blocks of `blocks` built with direction -1 (those that reach a target): the
// same answer, in the same breadth-first order, when `target` holds only at
// the instructions `blocks` was built from.
std::vector<InstId> findAllReachable(const FunctionModel& fn, InstId from, const std::function<bool(InstId)>& target,
                                     const std::function<bool(InstId)>& stop, size_t limit, const TargetBlocks& blocks);

}  // namespace fenceline::model
