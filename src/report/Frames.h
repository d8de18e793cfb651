// How renderers read a Location: the frame it is reported at, the library
// helper frames inside it, and the outer frames it was inlined through.
//
// The frame reported at is the user's line: nvcc inlines atomicAdd, CuTe's
// copy and every other header helper, so the innermost frame of a chain is
// often a toolkit or library header the user cannot change. Walking the chain
// from the kernel inwards, past library frames that wrap the user's code (a
// CUTLASS kernel template calling the user's functor), the primary frame is
// the last user frame before the next library frame (the user's call into the
// library); the library frames
// below it are shown as "expanded from" notes, the way compilers print
// template instantiation and macro expansion chains. A chain with no user
// frame keeps its innermost frame. Which files are library code is decided by
// the driver (driver/UserCode.h); this file only does the arithmetic.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>

#include "report/Diagnostic.h"

namespace fenceline::report {

model::SourceFrame primaryFrame(const Location& location);
// frames[primary+1..]: the call sites, innermost caller first. Empty without .loc.
std::span<const model::SourceFrame> inlinedAt(const Location& location);
// frames[0..primary): library frames below the user's line, innermost first.
std::span<const model::SourceFrame> helperFrames(const Location& location);

// The index of the primary frame of `frames` given which files are library
// code: the innermost frame of the outermost run of user frames (library
// frames wrapping the user's code are skipped); nullopt when no frame is the user's.
std::optional<size_t> choosePrimary(std::span<const model::SourceFrame> frames,
                                    const std::function<bool(const std::string& file)>& isLibrary);

}  // namespace fenceline::report
