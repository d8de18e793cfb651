// A map from 64-bit keys (two instruction ids, or an id and a set number) to
// a small value, for the protocol model's memoized pairwise answers: millions
// of entries on communication libraries (NVSHMEM's device image asks for
// about that many pairs), where std::unordered_map costs a node allocation
// per entry and two cache misses per lookup. Open addressing with linear
// probing in one array; the capacity doubles past 1/2 full. Entries are never
// erased. A pointer returned by find() is valid until the next insert().
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fenceline::model {

template <typename T>
class PairMap {
 public:
  const T* find(uint64_t key) const {
    if (key == kEmpty) return hasEmptyKey_ ? &emptyKeyValue_ : nullptr;
    if (slots_.empty()) return nullptr;
    for (size_t i = slotOf(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == kEmpty) return nullptr;
    }
  }

  // Adds `key` (not present yet) with `value`.
  void insert(uint64_t key, const T& value) {
    if (key == kEmpty) {
      hasEmptyKey_ = true;
      emptyKeyValue_ = value;
      return;
    }
    if (2 * (size_ + 1) > slots_.size()) grow();
    place(key, value);
    ++size_;
  }

  size_t size() const { return size_ + (hasEmptyKey_ ? 1 : 0); }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  struct Slot {
    uint64_t key = kEmpty;
    T value{};
  };

  size_t slotOf(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);  // Fibonacci hashing
  }

  void place(uint64_t key, const T& value) {
    size_t i = slotOf(key);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
    slots_[i].key = key;
    slots_[i].value = value;
  }

  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    const size_t capacity = old.empty() ? 64 : 2 * old.size();
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (const Slot& s : old)
      if (s.key != kEmpty) place(s.key, s.value);
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
  size_t mask_ = 0;
  int shift_ = 64;
  bool hasEmptyKey_ = false;
  T emptyKeyValue_{};
};

}  // namespace fenceline::model
