// A source location with its full inline chain, as diagnostics, notes,
// evidence links and fix requests carry it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/Program.h"

namespace fenceline::report {

// A location with its full inline chain: frames[0] is the innermost (where the
// instruction is), the following frames are the sites it was inlined into.
// `primary` is the frame reported first: the user's line (see report/Frames.h);
// frames[0..primary) are library helpers, shown as notes.
struct Location {
  std::vector<model::SourceFrame> frames;
  size_t primary = 0;
  std::string ptxFile;   // the PTX the instruction came from
  uint32_t ptxLine = 0;  // its line there (used when frames is empty)
  uint32_t ptxColumn = 0;
  std::string ptxText;   // the text of that PTX line, filled for --show-ptx
};

}  // namespace fenceline::report
