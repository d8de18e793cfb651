// Suppressions in CUDA source: a comment `// fenceline: ignore(check-id)` on
// the flagged line or on the line above it silences that check there. Several
// ids may be listed (`ignore(proxy-war, proxy-raw)`), and globs work
// (`ignore(proxy-*)`, `ignore(*)`). Every frame of the primary location's
// inline chain counts, so a suppression can sit in a helper or at the call
// site that inlines it.
#pragma once

#include <string_view>
#include <vector>

#include "report/Diagnostic.h"
#include "report/SourceText.h"

namespace fenceline::driver {

std::vector<report::Diagnostic> applySuppressions(std::vector<report::Diagnostic> diagnostics,
                                                  report::SourceText& sources);

// True when `line` carries a suppression comment that names `check`.
bool suppresses(std::string_view line, std::string_view check);

}  // namespace fenceline::driver
