// Suppression comments (see Suppressions.h).
#include "driver/Suppressions.h"

#include <fnmatch.h>

#include <string>

namespace fenceline::driver {

namespace {

constexpr std::string_view kMarker = "fenceline:";
constexpr std::string_view kIgnore = "ignore(";

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool suppressedAt(const report::Diagnostic& diagnostic, const model::SourceFrame& frame, report::SourceText& sources) {
  for (uint32_t line : {frame.line, frame.line - 1}) {
    if (line == 0) continue;
    if (auto text = sources.line(frame.file, line); text && suppresses(*text, diagnostic.check)) return true;
  }
  return false;
}

}  // namespace

bool suppresses(std::string_view line, std::string_view check) {
  for (size_t at = line.find(kMarker); at != std::string_view::npos; at = line.find(kMarker, at + 1)) {
    std::string_view rest = trim(line.substr(at + kMarker.size()));
    if (!rest.starts_with(kIgnore)) continue;
    rest.remove_prefix(kIgnore.size());
    size_t close = rest.find(')');
    if (close == std::string_view::npos) continue;
    std::string_view list = rest.substr(0, close);
    std::string id(check);
    while (!list.empty()) {
      size_t comma = list.find(',');
      std::string glob(trim(list.substr(0, comma)));
      if (!glob.empty() && ::fnmatch(glob.c_str(), id.c_str(), 0) == 0) return true;
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  return false;
}

std::vector<report::Diagnostic> applySuppressions(std::vector<report::Diagnostic> diagnostics,
                                                  report::SourceText& sources) {
  std::vector<report::Diagnostic> kept;
  for (auto& diagnostic : diagnostics) {
    bool suppressed = false;
    for (const auto& frame : diagnostic.location.frames)
      if ((suppressed = suppressedAt(diagnostic, frame, sources))) break;
    if (!suppressed) kept.push_back(std::move(diagnostic));
  }
  return kept;
}

}  // namespace fenceline::driver
