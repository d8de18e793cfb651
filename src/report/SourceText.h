// Source files as lines, read once and shared by everything that quotes or
// scans source: the text renderer's excerpts, SARIF fingerprints, suppression
// comments and --verify expectations. Unreadable files are remembered as such;
// callers then simply go without the excerpt.
//
// The paths come from the PTX (`.file 1 "/dev/zero"`), so they are not
// trusted: only regular files are read, opened without blocking (a FIFO
// must not hang the checker), and at most kMaxSourceBytes of them.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fenceline::report {

// One source file's text and where each of its lines lies in it: one
// allocation per file, not per line (a CUTLASS kernel names 50 headers of
// 70,000 lines, scanned whole for suppression comments). The lines are found
// on the first question about them: most headers are only searched for
// "fenceline" (suppression comments) and never split (issue 33: the
// per-run cost of a small file).
class SourceFile {
 public:
  explicit SourceFile(std::string text) : text_(std::move(text)) {}
  // Lines as splitLines counts them.
  size_t size() const { return index().size(); }
  // Line `index` (0-based), without its terminator.
  std::string_view operator[](size_t line) const {
    const Line& l = index()[line];
    return std::string_view(text_).substr(l.start, l.length);
  }
  const std::string& text() const { return text_; }

 private:
  struct Line {
    size_t start;
    size_t length;
  };
  // The lines, found once (several threads may ask: checks quote sources).
  const std::vector<Line>& index() const;
  std::string text_;
  mutable std::once_flag indexed_;
  mutable std::vector<Line> lines_;
};

class SourceText {
 public:
  // Larger source files are treated as unreadable (no excerpt, no suppressions).
  static constexpr size_t kMaxSourceBytes = size_t{64} << 20;

  // All lines of `path` (without line terminators), or null when unreadable.
  std::shared_ptr<const SourceFile> lines(const std::string& path);
  // Line `line` (1-based) of `path`, when the file is readable and long enough.
  std::optional<std::string> line(const std::string& path, uint32_t line);

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const SourceFile>> files_;
};

// Reads the regular file `path` whole, without blocking on FIFOs or devices
// and without reading more than `maxBytes`. On failure returns nullopt and
// sets `why` ("not a regular file", "larger than 64 MiB", strerror).
std::optional<std::string> readRegularFile(const std::string& path, size_t maxBytes, std::string& why);

// Splits text into lines, dropping "\n" and "\r\n" terminators.
std::vector<std::string> splitLines(const std::string& text);

}  // namespace fenceline::report
