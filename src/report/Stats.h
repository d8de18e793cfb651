// What one run of `fenceline check` looked at; reported by the JSON renderer
// and the summary line.
#pragma once

#include <cstddef>

namespace fenceline::report {

struct RunStats {
  size_t files = 0;         // PTX modules checked (one per .ptx or .cu input)
  size_t functions = 0;     // function models built
  size_t instructions = 0;  // instructions in those models
  double seconds = 0.0;     // wall-clock time of the whole run
};

}  // namespace fenceline::report
