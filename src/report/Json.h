// The JSON renderer. The schema is fixed (version 1):
//   {"version": 1,
//    "diagnostics": [{"check", "severity", "message", "function",
//                     "location": {"file", "line", "column"},
//                     "inlined_at": [{"function", "file", "line", "column"}, ...],
//                     "notes": [{"message", "location", "inlined_at"}],
//                     "fix", "fingerprint"}],   (fingerprint: report/Fingerprint.h)
//    "stats": {"files", "functions", "instructions", "seconds", "complete"},
//    "notifications": [{"level", "kind", "message", "file", "line", "column",
//                       "function"}]}   (report/Stats.h: what was not checked;
//                       "complete" is false when anything was not, or a signal
//                       stopped the run: the findings are those of the rest)
// "location" is the innermost source frame (the PTX position when the PTX has
// no line info); "inlined_at" lists the call sites, innermost caller first.
#pragma once

#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "report/Diagnostic.h"
#include "report/Stats.h"

namespace fenceline::report {

nlohmann::ordered_json toJson(const Diagnostic& diagnostic);
nlohmann::ordered_json notificationsJson(const RunStats& stats);
std::string renderJson(std::span<const Diagnostic> diagnostics, const RunStats& stats);

}  // namespace fenceline::report
