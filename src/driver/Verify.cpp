// Expectation matching for --verify (see Verify.h).
#include "driver/Verify.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "checks/CheckTable.h"
#include "report/Frames.h"

namespace fenceline::driver {

namespace {

struct Expectation {
  std::string file;     // as named in the source list
  uint32_t line = 0;
  std::string check;
  report::Tier tier = report::Tier::Default;  // expect: / expect-strict:
  bool met = false;
};

struct ExpectedId {
  std::string check;
  report::Tier tier;
};

std::string canonical(const std::string& path) {
  std::error_code error;
  auto result = std::filesystem::weakly_canonical(path, error);
  return error ? path : result.string();
}

bool isIdChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'; }

// The ids after "// expect:" (default tier) and "// expect-strict:" (strict
// tier) on a line: comma- or space-separated words, up to the first
// character that cannot be part of an id. A line may hold both comments.
std::vector<ExpectedId> expectedIds(std::string_view line) {
  std::vector<ExpectedId> ids;
  for (size_t comment = line.find("//"); comment != std::string_view::npos; comment = line.find("//", comment + 2)) {
    std::string_view rest = line.substr(comment + 2);
    size_t skip = rest.find_first_not_of(" \t");
    if (skip == std::string_view::npos) break;
    rest = rest.substr(skip);
    report::Tier tier;
    if (rest.starts_with("expect:")) {
      tier = report::Tier::Default;
      rest = rest.substr(7);
    } else if (rest.starts_with("expect-strict:")) {
      tier = report::Tier::Strict;
      rest = rest.substr(14);
    } else {
      continue;
    }
    size_t i = 0;
    for (;;) {
      while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t' || rest[i] == ',')) ++i;
      size_t start = i;
      while (i < rest.size() && isIdChar(rest[i])) ++i;
      if (i == start) break;
      ids.push_back({std::string(rest.substr(start, i - start)), tier});
    }
  }
  return ids;
}

}  // namespace

VerifyResult verify(const std::vector<report::Diagnostic>& diagnostics, const std::vector<std::string>& sourceFiles,
                    report::SourceText& sources, const report::TextOptions& textOptions, bool strict) {
  VerifyResult result;
  // Expectations keyed by canonical file and line.
  std::map<std::pair<std::string, uint32_t>, std::vector<Expectation>> expectations;
  std::set<std::string> scanned;
  for (const auto& file : sourceFiles) {
    std::string key = canonical(file);
    if (!scanned.insert(key).second) continue;
    auto lines = sources.lines(file);
    if (!lines) continue;
    for (uint32_t number = 1; number <= lines->size(); ++number) {
      for (auto& [id, tier] : expectedIds((*lines)[number - 1])) {
        if (!checks::findCheck(id)) {
          result.output += fmt::format("{}:{}: error: unknown check '{}' in expectation\n", file, number, id);
          ++result.missing;
          continue;
        }
        // Strict-tier findings are there to meet an expectation only under --strict.
        if (tier == report::Tier::Strict && !strict) continue;
        expectations[{key, number}].push_back({file, number, id, tier});
      }
    }
  }

  std::map<std::string, std::string> canonicalCache;
  auto canonicalOf = [&](const std::string& path) -> const std::string& {
    auto [it, inserted] = canonicalCache.try_emplace(path);
    if (inserted) it->second = canonical(path);
    return it->second;
  };
  for (const auto& diagnostic : diagnostics) {
    const report::Tier tier = diagnostic.tier();
    bool met = false, otherTier = false;
    for (const auto& frame : diagnostic.location.frames) {
      auto found = expectations.find({canonicalOf(frame.file), frame.line});
      if (found == expectations.end()) continue;
      for (auto& expectation : found->second) {
        if (expectation.met || expectation.check != diagnostic.check) continue;
        if (expectation.tier != tier) {
          otherTier = true;
          continue;
        }
        expectation.met = met = true;
        break;
      }
      if (met) break;
    }
    if (met) {
      ++result.matched;
      continue;
    }
    ++result.unexpected;
    result.output += report::renderText(diagnostic, sources, textOptions);
    model::SourceFrame primary = report::primaryFrame(diagnostic.location);
    result.output += fmt::format("{}:{}:{}: error: unexpected {}diagnostic [{}]{}\n", primary.file, primary.line,
                                 primary.column, tier == report::Tier::Strict ? "strict-tier " : "", diagnostic.check,
                                 otherTier ? fmt::format(" (the line expects it in the {} tier)",
                                                         tier == report::Tier::Strict ? "default" : "strict")
                                           : "");
  }
  for (const auto& [site, list] : expectations)
    for (const auto& expectation : list)
      if (!expectation.met) {
        ++result.missing;
        result.output += fmt::format("{}:{}: error: expected {}diagnostic '{}' not produced\n", expectation.file,
                                     expectation.line, expectation.tier == report::Tier::Strict ? "strict-tier " : "",
                                     expectation.check);
      }
  result.ok = result.missing == 0 && result.unexpected == 0;
  return result;
}

}  // namespace fenceline::driver
