// The JSON renderer. The schema is fixed (version 1):
//   {"version": 1,
//    "diagnostics": [{"check", "severity", "message", "function",
//                     "location": {"file", "line", "column"},
//                     "inlined_at": [{"function", "file", "line", "column"}, ...],
//                     "notes": [{"message", "location", "inlined_at"}],
//                     "fix", "fingerprint"}],   (fingerprint: report/Fingerprint.h)
//    "stats": {"files", "functions", "instructions", "seconds"}}
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
std::string renderJson(std::span<const Diagnostic> diagnostics, const RunStats& stats);

}  // namespace fenceline::report
