// Lists of instructions kept once each, by number, for memo tables whose
// keys share their answers: every signal of one flag has the same polls,
// every poll of one word the same signals. On NVSHMEM's put-with-signal
// dispatch the polls of 1,292 signals and of 1,292 written words, and the
// signals of 212 polls, were a list per key, 4 MiB of the function's peak
// (issue 35); here a key holds a number and each distinct list is kept once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

class InternedLists {
 public:
  InternedLists() { lists_.push_back(&ids_.try_emplace({}, 0).first->first); }

  // The number of `list` (the empty list is 0).
  uint32_t intern(std::vector<InstId> list) {
    auto [it, added] = ids_.try_emplace(std::move(list), static_cast<uint32_t>(lists_.size()));
    if (added) lists_.push_back(&it->first);
    return it->second;
  }
  const std::vector<InstId>& operator[](uint32_t id) const { return *lists_[id]; }
  size_t size() const { return lists_.size(); }
  // The bytes its lists hold, with a map node's overhead (FENCELINE_MEMSTATS).
  size_t bytes() const {
    size_t total = lists_.capacity() * sizeof(void*);
    for (const auto* list : lists_) total += list->capacity() * sizeof(InstId) + 64;
    return total;
  }

 private:
  std::map<std::vector<InstId>, uint32_t> ids_;  // nodes: the lists' addresses stay valid
  std::vector<const std::vector<InstId>*> lists_;
};

// A memo of one list per key (an instruction): the key's list number.
class ListMemo {
 public:
  // The key's list, or null when not asked yet.
  const std::vector<InstId>* find(InstId key) const {
    const auto it = ids_.find(key);
    return it == ids_.end() ? nullptr : &lists_[it->second];
  }
  // Keeps `list` as the key's (once for all the keys that have it).
  const std::vector<InstId>& set(InstId key, std::vector<InstId> list) {
    const uint32_t id = lists_.intern(std::move(list));
    ids_[key] = id;
    return lists_[id];
  }
  size_t size() const { return ids_.size(); }
  size_t bytes() const { return ids_.bucket_count() * sizeof(void*) + ids_.size() * 24 + lists_.bytes(); }

 private:
  InternedLists lists_;
  std::unordered_map<InstId, uint32_t> ids_;
};

}  // namespace fenceline::model
