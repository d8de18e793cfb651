// Primary frame and inline chain of a Location (see Frames.h).
#include "report/Frames.h"

namespace fenceline::report {

model::SourceFrame primaryFrame(const Location& location) {
  if (!location.frames.empty()) return location.frames.front();
  model::SourceFrame frame;
  frame.file = location.ptxFile;
  frame.line = location.ptxLine;
  frame.column = location.ptxColumn;
  return frame;
}

std::span<const model::SourceFrame> inlinedAt(const Location& location) {
  if (location.frames.size() <= 1) return {};
  return std::span<const model::SourceFrame>(location.frames).subspan(1);
}

}  // namespace fenceline::report
