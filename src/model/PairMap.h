// A map from 64-bit keys (two instruction ids, or an id and a set number) to
// a small value, for the protocol model's memoized pairwise answers: millions
// of entries on communication libraries (NVSHMEM's device image asks for
// about that many pairs), where std::unordered_map costs a node allocation
// per entry and two cache misses per lookup. Open addressing with linear
// probing; keys and values in two arrays (a slot is 8 bytes and the value,
// not 16 for a value of a byte or two); the capacity grows by half past 3/4
// full (any capacity: a key's home slot is its hash scaled to the capacity),
// so that a table is on average about 60% full, not 56% as when doubling.
// Entries are never erased. A pointer returned by find() is valid until the
// next insert() or assign().
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
    if (keys_.empty()) return nullptr;
    for (size_t i = slotOf(key);; i = next(i)) {
      if (keys_[i] == key) return &values_[i].value;
      if (keys_[i] == kEmpty) return nullptr;
    }
  }

  // Sets `key`'s value, adding the key when it is not present.
  void assign(uint64_t key, const T& value) {
    if (key == kEmpty) {
      hasEmptyKey_ = true;
      emptyKeyValue_ = value;
      return;
    }
    if (!keys_.empty())
      for (size_t i = slotOf(key);; i = next(i)) {
        if (keys_[i] == key) {
          values_[i].value = value;
          return;
        }
        if (keys_[i] == kEmpty) break;
      }
    insert(key, value);
  }

  // The value of `key`, added with T{} when it is not present: one probe
  // for a read-modify-write. Valid until the next insert, assign or slot.
  T& slot(uint64_t key) {
    if (key == kEmpty) {
      hasEmptyKey_ = true;
      return emptyKeyValue_;
    }
    if (!keys_.empty())
      for (size_t i = slotOf(key);; i = next(i)) {
        if (keys_[i] == key) return values_[i].value;
        if (keys_[i] == kEmpty) {
          if (4 * (size_ + 1) > 3 * keys_.size()) break;  // grows first
          keys_[i] = key;
          ++size_;
          return values_[i].value;
        }
      }
    grow();
    size_t i = slotOf(key);
    while (keys_[i] != kEmpty) i = next(i);
    keys_[i] = key;
    ++size_;
    return values_[i].value;
  }

  // Adds `key` (not present yet) with `value`.
  void insert(uint64_t key, const T& value) {
    if (key == kEmpty) {
      hasEmptyKey_ = true;
      emptyKeyValue_ = value;
      return;
    }
    if (4 * (size_ + 1) > 3 * keys_.size()) grow();
    place(key, value);
    ++size_;
  }

  size_t size() const { return size_ + (hasEmptyKey_ ? 1 : 0); }
  // The bytes its two arrays hold (FENCELINE_MEMSTATS).
  size_t bytes() const { return keys_.capacity() * sizeof(uint64_t) + values_.capacity() * sizeof(Box); }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  struct Box {  // not std::vector<bool>'s bits: find() hands out a pointer
    T value{};
  };

  // Fibonacci hashing, the product's high bits scaled to the capacity.
  size_t slotOf(uint64_t key) const {
    const uint64_t hash = key * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>((static_cast<unsigned __int128>(hash) * keys_.size()) >> 64);
  }
  size_t next(size_t i) const { return i + 1 == keys_.size() ? 0 : i + 1; }

  void place(uint64_t key, const T& value) {
    size_t i = slotOf(key);
    while (keys_[i] != kEmpty) i = next(i);
    keys_[i] = key;
    values_[i].value = value;
  }

  void grow() {
    std::vector<uint64_t> oldKeys;
    std::vector<Box> oldValues;
    oldKeys.swap(keys_);
    oldValues.swap(values_);
    const size_t capacity = oldKeys.empty() ? 64 : oldKeys.size() + oldKeys.size() / 2;
    keys_.assign(capacity, kEmpty);
    values_.assign(capacity, Box{});
    for (size_t i = 0; i < oldKeys.size(); ++i)
      if (oldKeys[i] != kEmpty) place(oldKeys[i], oldValues[i].value);
  }

  std::vector<uint64_t> keys_;
  std::vector<Box> values_;
  size_t size_ = 0;
  bool hasEmptyKey_ = false;
  T emptyKeyValue_{};
};

}  // namespace fenceline::model
