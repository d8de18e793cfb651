// De-duplication and ordering of diagnostics (see Deduplicate.h).
#include "driver/Deduplicate.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "report/Frames.h"

namespace fenceline::driver {

namespace {

// Unrolled copies share every frame, function names included.
std::string copyKey(const report::Diagnostic& diagnostic) {
  const report::Location& location = diagnostic.location;
  std::string key = diagnostic.check;
  if (location.frames.empty()) return key + fmt::format("|{}:{}", location.ptxFile, location.ptxLine);
  for (const auto& frame : location.frames)
    key += fmt::format("|{}:{}:{}:{}", frame.file, frame.line, frame.column, frame.function);
  return key;
}

// Instantiations share the user's lines: the primary frame and its callers.
std::string siteKey(const report::Diagnostic& diagnostic) {
  const report::Location& location = diagnostic.location;
  std::string key = diagnostic.check;
  if (location.frames.empty()) return key + fmt::format("|{}:{}|{}", location.ptxFile, location.ptxLine, diagnostic.function);
  model::SourceFrame primary = report::primaryFrame(location);
  key += fmt::format("|{}:{}:{}", primary.file, primary.line, primary.column);
  for (const auto& frame : report::inlinedAt(location))
    key += fmt::format("|{}:{}:{}", frame.file, frame.line, frame.column);
  return key;
}

// Of the copies of one site the first is kept, or the first of the highest
// severity: a copy whose links are all decided (a warning) stands for a site
// where another copy is only strict tier (a note).
std::vector<report::Diagnostic> dropUnrolledCopies(std::vector<report::Diagnostic> diagnostics) {
  std::map<std::string, size_t> seen;
  std::vector<report::Diagnostic> kept;
  for (auto& diagnostic : diagnostics) {
    auto [it, inserted] = seen.try_emplace(copyKey(diagnostic), kept.size());
    if (inserted)
      kept.push_back(std::move(diagnostic));
    else if (kept[it->second].severity < diagnostic.severity)
      kept[it->second] = std::move(diagnostic);
  }
  return kept;
}

// Per site: the kernels that reached it, in order of first appearance.
struct Site {
  std::vector<std::string> kernels;
  std::vector<size_t> kept;  // indices (in the result) of the reported kernel's diagnostics
};

std::vector<report::Diagnostic> mergeInstantiations(std::vector<report::Diagnostic> diagnostics) {
  std::map<std::string, Site> sites;
  std::vector<report::Diagnostic> kept;
  for (auto& diagnostic : diagnostics) {
    Site& site = sites[siteKey(diagnostic)];
    const std::string& kernel = diagnostic.function;
    if (std::find(site.kernels.begin(), site.kernels.end(), kernel) == site.kernels.end())
      site.kernels.push_back(kernel);
    if (site.kernels.front() != kernel) continue;  // another instantiation of a reported site
    site.kept.push_back(kept.size());
    kept.push_back(std::move(diagnostic));
  }
  for (const auto& [key, site] : sites)
    if (site.kernels.size() > 1)
      for (size_t index : site.kept) kept[index].instantiations = site.kernels;
  return kept;
}

}  // namespace

std::vector<report::Diagnostic> deduplicate(std::vector<report::Diagnostic> diagnostics) {
  return mergeInstantiations(dropUnrolledCopies(std::move(diagnostics)));
}

KeyHash keyHash(std::string_view text) {
  // FNV-1a, and the standard library's string hash (of this process only:
  // the keys are compared within one run).
  uint64_t fnv = 1469598103934665603ull;
  for (unsigned char c : text) {
    fnv ^= c;
    fnv *= 1099511628211ull;
  }
  return {fnv, std::hash<std::string_view>{}(text)};
}

FindingKeys keysOf(const report::Diagnostic& diagnostic) {
  return FindingKeys{keyHash(copyKey(diagnostic)), keyHash(siteKey(diagnostic)), keyHash(diagnostic.function),
                     diagnostic.severity};
}

// The two steps of deduplicate(), on the keys: the copies that
// dropUnrolledCopies keeps, then those mergeInstantiations keeps.
size_t countDeduplicated(const std::vector<FindingKeys>& keys) {
  std::map<KeyHash, size_t> seen;
  std::vector<const FindingKeys*> kept;
  for (const auto& k : keys) {
    auto [it, inserted] = seen.try_emplace(k.copy, kept.size());
    if (inserted)
      kept.push_back(&k);
    else if (kept[it->second]->severity < k.severity)
      kept[it->second] = &k;
  }
  std::map<KeyHash, std::vector<KeyHash>> sites;
  size_t count = 0;
  for (const FindingKeys* k : kept) {
    auto& kernels = sites[k->site];
    if (std::find(kernels.begin(), kernels.end(), k->function) == kernels.end()) kernels.push_back(k->function);
    if (kernels.front() == k->function) ++count;
  }
  return count;
}

std::vector<report::Diagnostic> IncrementalDeduplicator::add(std::vector<report::Diagnostic> batch) {
  std::vector<report::Diagnostic> fresh;
  for (auto& diagnostic : batch)
    if (copies_.insert(copyKey(diagnostic)).second) fresh.push_back(std::move(diagnostic));
  // Sites reported by an earlier batch: their copies here are dropped.
  std::vector<report::Diagnostic> kept;
  std::map<std::string, Site> sites;
  for (auto& diagnostic : fresh) {
    const std::string key = siteKey(diagnostic);
    std::vector<std::string>& kernels = siteKernels_[key];
    const bool earlier = !kernels.empty() && !sites.contains(key);
    if (std::find(kernels.begin(), kernels.end(), diagnostic.function) == kernels.end())
      kernels.push_back(diagnostic.function);
    if (earlier) continue;
    Site& site = sites[key];
    if (kernels.front() != diagnostic.function) continue;
    site.kept.push_back(kept.size());
    kept.push_back(std::move(diagnostic));
  }
  for (const auto& [key, site] : sites)
    if (const auto& kernels = siteKernels_[key]; kernels.size() > 1)
      for (size_t index : site.kept) kept[index].instantiations = kernels;
  return kept;
}

void sortByLocation(std::vector<report::Diagnostic>& diagnostics) {
  std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const auto& a, const auto& b) {
    auto fa = report::primaryFrame(a.location), fb = report::primaryFrame(b.location);
    return std::tie(fa.file, fa.line, fa.column, a.check) < std::tie(fb.file, fb.line, fb.column, b.check);
  });
}

}  // namespace fenceline::driver
