// Where the checks anchor their machine fixes (report/Fix.h): the PTX
// instruction a fix line goes before, found from the program model, so that
// the line is executed by the right threads. The fix planner (fix/Planner.h)
// maps the instruction to the user's source line through its .loc.
#pragma once

#include <string>

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
// A request to insert `fence` after the loop statement holding `poll`.
report::FixRequest insertAfterLoop(const model::FunctionModel& fn, model::InstId poll, report::FenceToInsert fence,
                                   std::string scope);
// A request to widen the scope of the operation `inst` from `from` to `to`.
report::FixRequest widenScope(const model::FunctionModel& fn, model::InstId inst, model::Scope from, model::Scope to);
// A request with no edit, and why.
report::FixRequest noMachineFix(std::string reason);

// "cta", "cluster", "gpu", "sys" (None reads as "cta": PTX's default for fences is .sys, for
// mbarrier operations .cta; callers pass the scope the operation has).
std::string scopeWord(model::Scope scope);

}  // namespace fenceline::checks
