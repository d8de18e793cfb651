// The one table of checks: id, default severity, summary, documentation page,
// and the function that runs it. The CLI's --checks filter, list-checks,
// explain, SARIF rules and docs/checks/ all come from here.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "model/Program.h"
#include "report/Diagnostic.h"

namespace fenceline::checks {

// A check looks at one function model and appends what it finds.
using CheckFunction = void (*)(const model::FunctionModel&, std::vector<report::Diagnostic>&);

struct CheckInfo {
  std::string_view id;
  report::Severity severity;
  std::string_view summary;  // one line
  std::string_view docPage;  // path relative to the repository: docs/checks/<id>.md
  CheckFunction run;         // never null
};

std::span<const CheckInfo> allChecks();
const CheckInfo* findCheck(std::string_view id);

}  // namespace fenceline::checks
