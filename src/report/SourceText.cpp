// Line cache for source files (see SourceText.h).
#include "report/SourceText.h"

#include <fstream>
#include <sstream>

namespace fenceline::report {

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> result;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    size_t stop = end;
    if (stop > start && text[stop - 1] == '\r') --stop;
    result.emplace_back(text, start, stop - start);
    start = end + 1;
  }
  return result;
}

std::shared_ptr<const std::vector<std::string>> SourceText::lines(const std::string& path) {
  std::lock_guard lock(mutex_);
  if (auto found = files_.find(path); found != files_.end()) return found->second;
  std::shared_ptr<const std::vector<std::string>> content;
  std::ifstream in(path, std::ios::binary);
  if (in) {
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (!in.bad()) content = std::make_shared<const std::vector<std::string>>(splitLines(buffer.str()));
  }
  files_.emplace(path, content);
  return content;
}

std::optional<std::string> SourceText::line(const std::string& path, uint32_t line) {
  if (path.empty() || line == 0) return std::nullopt;
  auto content = lines(path);
  if (!content || line > content->size()) return std::nullopt;
  return (*content)[line - 1];
}

}  // namespace fenceline::report
