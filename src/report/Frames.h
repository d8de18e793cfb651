// How renderers read a Location: the frame it is reported at (the innermost
// source frame, or the PTX position when the PTX carries no .loc), and the
// outer frames it was inlined through.
#pragma once

#include <span>

#include "report/Diagnostic.h"

namespace fenceline::report {

model::SourceFrame primaryFrame(const Location& location);
// frames[1..]: the call sites, innermost caller first. Empty without .loc.
std::span<const model::SourceFrame> inlinedAt(const Location& location);

}  // namespace fenceline::report
