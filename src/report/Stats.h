// What one run of `fenceline check` looked at; reported by the JSON renderer
// and the summary line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fenceline::report {

// Something the run could not do, beside the findings: a function not
// checked (a limit, an internal error), an input that could not be read or
// parsed, kernels without PTX, a run interrupted. The text report prints
// them to stderr as they come; JSON lists them as "notifications" and SARIF
// as the invocation's toolExecutionNotifications.
struct RunNotification {
  std::string level = "error";  // error | warning | note
  // limit (instructions, registers, calls, inlining), time, memory,
  // internal-error, interrupted, input-error, parse-error, sass-only, nothing-to-check,
  // summarized-calls (a note: model/CallSummaries.h)
  std::string kind;
  std::string message;          // without the location
  std::string file;             // the input or PTX it concerns, "" when none
  uint32_t line = 0, column = 0;
  std::string function;         // the function not checked, "" when none
};

struct RunStats {
  size_t files = 0;         // PTX modules checked (one per .ptx or .cu input)
  size_t functions = 0;     // function models built
  size_t instructions = 0;  // instructions in those models
  double seconds = 0.0;     // wall-clock time of the whole run
  // Every notification of the run, in input order.
  std::vector<RunNotification> notifications;
  // The signal that stopped the run early (SIGINT, SIGTERM), 0 when it ran to the end.
  int interruptedBy = 0;
  // The report covers every input: not interrupted, no function or input left unchecked.
  bool complete() const {
    if (interruptedBy) return false;
    for (const auto& n : notifications)
      if (n.level == "error") return false;
    return true;
  }
};

}  // namespace fenceline::report
