// One report per source site. Pipelines are unrolled by their stage count, so
// one source line can become several PTX instructions that each trip a check;
// diagnostics with the same check and the same primary location chain (every
// frame's file, line, column and function) are one finding. The first one,
// in the order the checks produced them, is kept.
#pragma once

#include <vector>

#include "report/Diagnostic.h"

namespace fenceline::driver {

std::vector<report::Diagnostic> deduplicate(std::vector<report::Diagnostic> diagnostics);

// Orders diagnostics by primary location (file, line, column), then check id;
// stable, so equal sites keep the checks' order.
void sortByLocation(std::vector<report::Diagnostic>& diagnostics);

}  // namespace fenceline::driver
