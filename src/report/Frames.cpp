// Primary frame, helper frames and inline chain of a Location (see Frames.h).
#include "report/Frames.h"

#include <algorithm>

namespace fenceline::report {

model::SourceFrame primaryFrame(const Location& location) {
  if (!location.frames.empty()) return location.frames[std::min(location.primary, location.frames.size() - 1)];
  model::SourceFrame frame;
  frame.file = location.ptxFile;
  frame.line = location.ptxLine;
  frame.column = location.ptxColumn;
  return frame;
}

std::span<const model::SourceFrame> inlinedAt(const Location& location) {
  size_t first = std::min(location.primary, location.frames.size()) + 1;
  if (location.frames.size() <= first) return {};
  return std::span<const model::SourceFrame>(location.frames).subspan(first);
}

std::span<const model::SourceFrame> helperFrames(const Location& location) {
  size_t count = std::min(location.primary, location.frames.size());
  return std::span<const model::SourceFrame>(location.frames).first(count);
}

std::optional<size_t> choosePrimary(std::span<const model::SourceFrame> frames,
                                    const std::function<bool(const std::string& file)>& isLibrary) {
  // From the kernel (the last frame) inwards: skip library frames that wrap the
  // user's code (a CUTLASS kernel template calling the user's functor), then
  // follow the user's frames down to the first library call.
  size_t i = frames.size();
  while (i > 0 && isLibrary(frames[i - 1].file)) --i;
  if (i == 0) return std::nullopt;
  size_t primary = --i;
  while (primary > 0 && !isLibrary(frames[primary - 1].file)) --primary;
  return primary;
}

}  // namespace fenceline::report
