// Line cache for source files (see SourceText.h).
#include "report/SourceText.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fenceline::report {

std::optional<std::string> readRegularFile(const std::string& path, size_t maxBytes, std::string& why) {
  // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  struct stat info {};
  std::optional<std::string> text;
  if (::fstat(fd, &info) != 0) {
    why = std::strerror(errno);
  } else if (!S_ISREG(info.st_mode)) {
    why = S_ISDIR(info.st_mode) ? "is a directory" : "not a regular file";
  } else if (static_cast<uint64_t>(info.st_size) > maxBytes) {
    why = "larger than " + std::to_string(maxBytes >> 20) + " MiB";
  } else {
    text.emplace();
    text->resize(static_cast<size_t>(info.st_size));
    size_t done = 0;
    // Read what fstat promised, stopping early if the file shrank meanwhile.
    while (done < text->size()) {
      ssize_t n = ::read(fd, text->data() + done, text->size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        why = std::strerror(errno);
        text.reset();
        break;
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    if (text) text->resize(done);
  }
  ::close(fd);
  return text;
}

// Calls `line(start, length)` for each line of `text`, dropping "\n" and
// "\r\n" terminators (a last line without one counts too).
template <typename OnLine>
void forEachLine(std::string_view text, OnLine&& line) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    size_t stop = end;
    if (stop > start && text[stop - 1] == '\r') --stop;
    line(start, stop - start);
    start = end + 1;
  }
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> result;
  forEachLine(text, [&](size_t start, size_t length) { result.emplace_back(text, start, length); });
  return result;
}

const std::vector<SourceFile::Line>& SourceFile::index() const {
  std::call_once(indexed_, [this] {
    forEachLine(text_, [&](size_t start, size_t length) { lines_.push_back({start, length}); });
  });
  return lines_;
}

std::shared_ptr<const SourceFile> SourceText::lines(const std::string& path) {
  std::lock_guard lock(mutex_);
  if (auto found = files_.find(path); found != files_.end()) return found->second;
  std::shared_ptr<const SourceFile> content;
  std::string why;
  if (auto text = readRegularFile(path, kMaxSourceBytes, why)) content = std::make_shared<const SourceFile>(std::move(*text));
  files_.emplace(path, content);
  return content;
}

std::optional<std::string> SourceText::line(const std::string& path, uint32_t line) {
  if (path.empty() || line == 0) return std::nullopt;
  auto content = lines(path);
  if (!content || line > content->size()) return std::nullopt;
  return std::string((*content)[line - 1]);
}

}  // namespace fenceline::report
