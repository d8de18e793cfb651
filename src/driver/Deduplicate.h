// One report per source site, in two steps.
//
// Unrolled copies: pipelines are unrolled by their stage count, so one source
// line can become several PTX instructions that each trip a check;
// diagnostics with the same check and the same location chain (every frame's
// file, line, column and function) are one finding. The first one, in the
// order the checks produced them, is kept.
//
// Instantiations: a template kernel instantiated for several types (or tile
// shapes) is several PTX functions with one source; a bug in its body is one
// bug. Diagnostics with the same check and the same chain of user lines (the
// primary frame and its callers: file, line and column, not the function
// names, which carry the template arguments) found in different kernels are
// one finding, reported in the first kernel; `instantiations` lists every
// kernel that reached the site, the reported one first.
#pragma once

#include <vector>

#include "report/Diagnostic.h"

namespace fenceline::driver {

std::vector<report::Diagnostic> deduplicate(std::vector<report::Diagnostic> diagnostics);

// Orders diagnostics by primary location (file, line, column), then check id;
// stable, so equal sites keep the checks' order.
void sortByLocation(std::vector<report::Diagnostic>& diagnostics);

}  // namespace fenceline::driver
