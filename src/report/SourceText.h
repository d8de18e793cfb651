// Source files as lines, read once and shared by everything that quotes or
// scans source: the text renderer's excerpts, SARIF fingerprints, suppression
// comments and --verify expectations. Unreadable files are remembered as such;
// callers then simply go without the excerpt.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace fenceline::report {

class SourceText {
 public:
  // All lines of `path` (without line terminators), or null when unreadable.
  std::shared_ptr<const std::vector<std::string>> lines(const std::string& path);
  // Line `line` (1-based) of `path`, when the file is readable and long enough.
  std::optional<std::string> line(const std::string& path, uint32_t line);

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const std::vector<std::string>>> files_;
};

// Splits text into lines, dropping "\n" and "\r\n" terminators.
std::vector<std::string> splitLines(const std::string& text);

}  // namespace fenceline::report
