// Stable finding fingerprints (see Fingerprint.h).
#include "report/Fingerprint.h"

#include <map>

#include <fmt/format.h>

#include "report/Frames.h"

namespace fenceline::report {

namespace {

// 64-bit FNV-1a: small, stable across platforms and releases.
uint64_t fnv1a(std::string_view text, uint64_t hash = 1469598103934665603ull) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string trimmed(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t");
  return std::string(text.substr(begin, end - begin + 1));
}

std::string fingerprintKey(const Diagnostic& diagnostic, const std::filesystem::path& root, SourceText& sources) {
  model::SourceFrame primary = primaryFrame(diagnostic.location);
  std::string key = diagnostic.check + '\0' + projectRelativePath(primary.file, root) + '\0';
  for (const auto& frame : diagnostic.location.frames) key += frame.function + '\0';
  if (auto line = sources.line(primary.file, primary.line))
    key += trimmed(*line);
  else
    key += std::to_string(primary.line);
  return key;
}

}  // namespace

std::string projectRelativePath(const std::string& file, const std::filesystem::path& root) {
  std::filesystem::path path(file);
  if (path.is_relative()) return path.lexically_normal().generic_string();
  std::filesystem::path normal = path.lexically_normal();
  if (!root.empty()) {
    std::filesystem::path relative = normal.lexically_relative(root.lexically_normal());
    if (!relative.empty() && *relative.begin() != "..") return relative.generic_string();
  }
  return normal.generic_string();
}

void assignFingerprints(std::vector<Diagnostic>& diagnostics, const std::filesystem::path& root, SourceText& sources) {
  std::map<std::string, int> occurrences;
  for (auto& diagnostic : diagnostics) {
    std::string key = fingerprintKey(diagnostic, root, sources);
    int occurrence = ++occurrences[key];
    diagnostic.fingerprint = fmt::format("{:016x}:{}", fnv1a(key), occurrence);
  }
}

}  // namespace fenceline::report
