// Suppression comments (see Suppressions.h).
#include "driver/Suppressions.h"

#include <fnmatch.h>

#include <optional>
#include <set>

#include <fmt/format.h>

#include "checks/CheckTable.h"
#include "driver/CheckSelection.h"
#include "driver/DidYouMean.h"

namespace fenceline::driver {

namespace {

constexpr std::string_view kNolintPrefix = "fenceline-";

// The comment markers: what introduces the list, how far it reaches, and
// whether list items must carry the `fenceline-` prefix.
struct Marker {
  std::string_view text;  // up to and including '('
  Suppression::Reach reach;
  bool prefixed;
};
constexpr Marker kMarkers[] = {
    {"NOLINTNEXTLINE(", Suppression::Reach::NextLine, true},
    {"NOLINT(", Suppression::Reach::ThisLine, true},
};

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The items of "a, b, c)" starting at `open` (just after '('), or nullopt
// when the list is not closed on this line.
std::optional<std::vector<Suppression::Item>> listAt(std::string_view line, size_t open, bool prefixed) {
  size_t close = line.find(')', open);
  if (close == std::string_view::npos) return std::nullopt;
  std::vector<Suppression::Item> items;
  size_t at = open;
  while (at <= close) {
    size_t comma = std::min(line.find(',', at), close);
    std::string_view raw = line.substr(at, comma - at);
    size_t lead = raw.find_first_not_of(" \t");
    std::string_view written = trim(raw);
    if (!written.empty()) {
      uint32_t column = static_cast<uint32_t>(at + lead + 1);
      if (!prefixed)
        items.push_back({std::string(written), std::string(written), column});
      else if (written.starts_with(kNolintPrefix))
        items.push_back({std::string(written.substr(kNolintPrefix.size())), std::string(written), column});
    }
    at = comma + 1;
  }
  return items;
}

// `fenceline: ignore(` with any spaces after the colon.
void findIgnoreComments(std::string_view line, std::vector<Suppression>& found) {
  constexpr std::string_view kTag = "fenceline:", kIgnore = "ignore(";
  for (size_t at = line.find(kTag); at != std::string_view::npos; at = line.find(kTag, at + 1)) {
    size_t start = line.find_first_not_of(" \t", at + kTag.size());
    if (start == std::string_view::npos || line.substr(start, kIgnore.size()) != kIgnore) continue;
    if (auto items = listAt(line, start + kIgnore.size(), false))
      found.push_back({Suppression::Reach::ThisAndNextLine, std::move(*items)});
  }
}

void findNolintComments(std::string_view line, std::vector<Suppression>& found) {
  for (const auto& marker : kMarkers) {
    for (size_t at = line.find(marker.text); at != std::string_view::npos; at = line.find(marker.text, at + 1)) {
      // "NOLINT(" must not be the tail of a longer marker ("XNOLINT(").
      if (at > 0 && (std::isalnum(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == '_')) continue;
      if (auto items = listAt(line, at + marker.text.size(), marker.prefixed))
        found.push_back({marker.reach, std::move(*items)});
    }
  }
}

bool reaches(Suppression::Reach reach, bool sameLine) {
  if (reach == Suppression::Reach::ThisAndNextLine) return true;
  return sameLine == (reach == Suppression::Reach::ThisLine);
}

bool suppressedAt(const report::Diagnostic& diagnostic, const model::SourceFrame& frame, report::SourceText& sources) {
  if (frame.line == 0) return false;
  if (auto text = sources.line(frame.file, frame.line); text && suppresses(*text, diagnostic.check, true)) return true;
  if (frame.line == 1) return false;
  auto above = sources.line(frame.file, frame.line - 1);
  return above && suppresses(*above, diagnostic.check, false);
}

bool namesSomeCheck(const std::string& glob) {
  for (const auto& check : checks::allChecks())
    if (::fnmatch(glob.c_str(), std::string(check.id).c_str(), 0) == 0) return true;
  return false;
}

}  // namespace

std::vector<Suppression> parseSuppressions(std::string_view line) {
  std::vector<Suppression> found;
  if (line.find("fenceline") == std::string_view::npos) return found;  // fast path: most lines
  findIgnoreComments(line, found);
  findNolintComments(line, found);
  return found;
}

bool suppresses(std::string_view line, std::string_view check, bool sameLine) {
  std::string id(check);
  for (const auto& suppression : parseSuppressions(line)) {
    if (!reaches(suppression.reach, sameLine)) continue;
    for (const auto& item : suppression.items)
      if (::fnmatch(item.glob.c_str(), id.c_str(), 0) == 0) return true;
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

std::vector<std::string> unknownSuppressionIds(const std::vector<std::string>& files, report::SourceText& sources) {
  std::vector<std::string> warnings;
  std::set<std::string> seen;
  auto ids = checkIdList();
  for (const auto& file : files) {
    if (!seen.insert(file).second) continue;
    auto lines = sources.lines(file);
    // parseSuppressions finds nothing on a line without "fenceline": skip
    // such files (nearly every library header) in one search.
    if (!lines || lines->text().find("fenceline") == std::string::npos) continue;
    for (size_t i = 0; i < lines->size(); ++i) {
      for (const auto& suppression : parseSuppressions((*lines)[i])) {
        for (const auto& item : suppression.items) {
          if (namesSomeCheck(item.glob)) continue;
          std::string hint;
          if (auto match = closestMatch(item.glob, ids))
            hint = fmt::format("; did you mean '{}{}'?", item.written == item.glob ? "" : kNolintPrefix, *match);
          warnings.push_back(fmt::format("{}:{}:{}: warning: unknown check '{}' in a suppression comment{}; it "
                                         "suppresses nothing",
                                         file, i + 1, item.column, item.written, hint));
        }
      }
    }
  }
  return warnings;
}

}  // namespace fenceline::driver
