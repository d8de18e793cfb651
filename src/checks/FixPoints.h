// Where the checks anchor their machine fixes (report/Fix.h): the PTX
// instruction a fix line goes before, found from the program model, so that
// the line is executed by the right threads. The fix planner (fix/Planner.h)
// maps the instruction to the user's source line through its .loc.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "model/MemoryEffect.h"
#include "model/Program.h"
#include "report/Diagnostic.h"

namespace fenceline::checks {

// The instruction to insert before so that every thread that executes
// `member` also executes the inserted line ahead of `inst`: `inst` itself when
// it runs for those threads, else the branch that enters the election around
// it (`if (lane == 0)`, `elect.sync`): the last instruction of the nearest
// dominating block whose threads are `member`'s. -1 when no such block
// exists (the election spans the whole function).
model::InstId outsideElection(const model::FunctionModel& fn, model::InstId inst, model::InstId member);

// A request to insert `fence` on its own line before `anchor`.
report::FixRequest insertBefore(const model::FunctionModel& fn, model::InstId anchor, report::FenceToInsert fence,
                                std::string scope = "");
// A request to insert `fence` after the loop statement holding `poll`: the spin loop's
// statement in the frame that holds it (report::FixRequest::loop), so that a poll inside a
// helper the loop calls each iteration gets its fence once, after the loop in the caller.
report::FixRequest insertAfterLoop(const model::FunctionModel& fn, model::InstId poll, report::FenceToInsert fence,
                                   std::string scope);
// A request to insert `fence` on its own line after the statement of `anchor`.
report::FixRequest insertAfter(const model::FunctionModel& fn, model::InstId anchor, report::FenceToInsert fence);
// `a` and `b` are instructions of one inlined copy of a helper (the same call site), so that a
// line placed relative to `a` before the helper's call would no longer follow `b`.
bool sameInlinedCall(const model::FunctionModel& fn, model::InstId a, model::InstId b);
// The smallest named-barrier id in 1..15 that no bar.sync / bar.arrive / barrier.sync of the
// function uses; nullopt when every id is taken or an id is not a constant.
std::optional<int> freeBarrierId(const model::FunctionModel& fn);

// Which threads of a CTA execute `inst`, as far as a __syncthreads() or a named barrier placed
// there needs to know: `range` is the %tid.x range the guards narrow it to; `uniform` is true
// when every branch that decides whether a thread gets there tests the thread index against
// constants (tid < 128, warp == 0) or values the same in every thread of the block (blockIdx.x ==
// 0, a kernel parameter), so that every thread of the range gets there; else `why` says which
// branch does not.
struct ThreadsAt {
  bool uniform = false;
  std::pair<int64_t, int64_t> range{0, 1023};
  bool narrowed() const { return range != std::pair<int64_t, int64_t>{0, 1023}; }
  std::string why;
};
ThreadsAt threadsAt(const model::FunctionModel& fn, model::InstId inst);
// The conditional branch on the thread index that elects `inst`'s threads (`if (t < 8)`,
// `if (lane == 0)`): the nearest one one of whose edges is the only way into a block that
// dominates `inst`. -1 when there is none.
model::InstId electionBranch(const model::FunctionModel& fn, model::InstId inst);
// A barrier among the threads that reach `anchor`, on its own line before the anchor's
// statement (or after it, `after`: for a branch, after the whole if statement):
// __syncthreads() when every thread of the CTA gets there, a named barrier when a range of whole
// warps that the guards name does, no edit otherwise (the reason says why).
report::FixRequest barrierAt(const model::FunctionModel& fn, model::InstId anchor, bool after);
// A request to widen the scope of the operation `inst` from `from` to `to`.
report::FixRequest widenScope(const model::FunctionModel& fn, model::InstId inst, model::Scope from, model::Scope to);
// A request with no edit, and why.
report::FixRequest noMachineFix(std::string reason);

// "cta", "cluster", "gpu", "sys" (None reads as "cta": PTX's default for fences is .sys, for
// mbarrier operations .cta; callers pass the scope the operation has).
std::string scopeWord(model::Scope scope);

}  // namespace fenceline::checks
