// De-duplication and ordering of diagnostics (see Deduplicate.h).
#include "driver/Deduplicate.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "report/Frames.h"

namespace fenceline::driver {

namespace {

std::string siteKey(const report::Diagnostic& diagnostic) {
  const report::Location& location = diagnostic.location;
  std::string key = diagnostic.check;
  if (location.frames.empty()) return key + fmt::format("|{}:{}", location.ptxFile, location.ptxLine);
  for (const auto& frame : location.frames)
    key += fmt::format("|{}:{}:{}:{}", frame.file, frame.line, frame.column, frame.function);
  return key;
}

}  // namespace

std::vector<report::Diagnostic> deduplicate(std::vector<report::Diagnostic> diagnostics) {
  std::set<std::string> seen;
  std::vector<report::Diagnostic> kept;
  for (auto& diagnostic : diagnostics)
    if (seen.insert(siteKey(diagnostic)).second) kept.push_back(std::move(diagnostic));
  return kept;
}

void sortByLocation(std::vector<report::Diagnostic>& diagnostics) {
  std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const auto& a, const auto& b) {
    auto fa = report::primaryFrame(a.location), fb = report::primaryFrame(b.location);
    return std::tie(fa.file, fa.line, fa.column, a.check) < std::tie(fb.file, fb.line, fb.column, b.check);
  });
}

}  // namespace fenceline::driver
