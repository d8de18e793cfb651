// TextPool and the process-wide spellings (see TextPool.h).
#include "ptx/TextPool.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

namespace fenceline::ptx {

std::string_view TextPool::intern(std::string_view text) {
  if (text.empty()) return {};
  if (auto found = index_.find(text); found != index_.end()) return *found;
  std::string_view stored = store(text);
  index_.insert(stored);
  return stored;
}

std::string_view TextPool::store(std::string_view text) {
  if (text.empty()) return {};
  if (capacity_ - used_ < text.size()) {
    // Chunks double from 256 bytes to 64 KiB: a small body stays small.
    size_t size = std::max(text.size(), std::min<size_t>(std::max<size_t>(256, 2 * capacity_), 64 * 1024));
    chunks_.push_back(std::make_unique<char[]>(size));
    capacity_ = size;
    used_ = 0;
    bytesHeld_ += size;
  }
  char* at = chunks_.back().get() + used_;
  std::memcpy(at, text.data(), text.size());
  used_ += text.size();
  return std::string_view(at, text.size());
}

namespace {

struct SpellingTable {
  std::mutex mutex;
  TextPool words;
  std::unordered_map<std::string_view, std::unique_ptr<Spelling>> bySpelling;
};

SpellingTable& spellingTable() {
  static SpellingTable* table = new SpellingTable();  // never destroyed: views outlive static destructors
  return *table;
}

}  // namespace

const Spelling& internSpelling(std::string_view spelled) {
  // Most lookups hit this thread's cache without taking the lock.
  thread_local std::unordered_map<std::string_view, const Spelling*> cache;
  if (auto found = cache.find(spelled); found != cache.end()) return *found->second;
  SpellingTable& table = spellingTable();
  std::lock_guard lock(table.mutex);
  auto found = table.bySpelling.find(spelled);
  if (found == table.bySpelling.end()) {
    std::string_view key = table.words.intern(spelled);
    auto spelling = std::make_unique<Spelling>();
    size_t dot = key.find('.');
    spelling->opcode = key.substr(0, dot);
    while (dot != std::string_view::npos) {
      size_t end = key.find('.', dot + 1);
      spelling->modifiers.push_back(key.substr(dot + 1, end == std::string_view::npos ? end : end - dot - 1));
      dot = end;
    }
    found = table.bySpelling.emplace(key, std::move(spelling)).first;
  }
  cache.emplace(found->first, found->second.get());
  return *found->second;
}

}  // namespace fenceline::ptx
