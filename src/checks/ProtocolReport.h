// How the flag and barrier protocol checks (acquire-missing, release-missing,
// scope-too-narrow, barrier-reuse, barrier-init-race) word their findings:
// locations in messages, scope names, fence spellings for fix texts, one
// finding per source site. What the checks know about the protocols
// themselves (spin loops, signals, partners, orderings) is the program
// model's: model/Protocol.h.
#pragma once

#include <string>

#include "model/Program.h"
#include "model/Memory.h"
#include "model/Protocol.h"
#include "model/Values.h"
#include "report/Diagnostic.h"

namespace fenceline::checks::protocol {

using model::FunctionModel;
using model::InstId;
using model::ProtocolModel;
using model::Scope;

// Text of a location for messages: "line 12" of the innermost frame, or the PTX line.
std::string describe(const FunctionModel& fn, InstId inst);
std::string scopeName(Scope scope);  // ".gpu"
// The C++ spelling of a fence at `scope`, for fix texts.
std::string fenceSpelling(Scope scope);

report::Diagnostic makeDiagnostic(const FunctionModel& fn, InstId at, std::string check, std::string message,
                                  std::string fix);
void addNote(report::Diagnostic& diagnostic, const FunctionModel& fn, InstId at, std::string message);

// One finding per source site within a check (an unrolled loop or a helper
// inlined twice at one call site is one site).
std::string siteKey(const FunctionModel& fn, InstId inst);

}  // namespace fenceline::checks::protocol
