// A map from pairs (row, column) of 32-bit numbers to a small value, for the
// protocol model's memoized pairwise answers where the rows are instruction
// ids or set numbers: one table per row, found by indexing an array with the
// row, holding 4-byte columns and the values. PairMap (model/PairMap.h) keeps
// the whole 8-byte key in each slot; here the row is said once per row, so a
// slot is 4 bytes and the value (8 bytes a slot for a 4-byte value, 5 for a
// byte) instead of 12 and 9: on NVSHMEM's put-with-signal dispatch the pair
// table and the block slices' table (456,000 and 290,000 pairs) were 11 MiB
// of the function's peak, the largest part of what its checks keep (issue
// 35). Each row is open addressing with linear probing and grows by half
// past 3/4 full (doubles while small), as PairMap does. A row past
// kMaxDenseRow (not an instruction id or set number: any 32-bit row is
// accepted) goes to a PairMap. Entries are never erased. A pointer or
// reference returned by find() or slot() is valid until the next slot() or
// assign() of the same row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "model/PairMap.h"

namespace fenceline::model {

template <typename T>
class PairTable {
 public:
  PairTable() = default;
  PairTable(PairTable&&) noexcept = default;
  PairTable& operator=(PairTable&&) noexcept = default;

  const T* find(uint32_t row, uint32_t column) const {
    if (row > kMaxDenseRow || column == kEmpty) return far_.find(keyOf(row, column));
    if (row >= rowOf_.size() || rowOf_[row] == 0) return nullptr;
    const Row& r = rows_[rowOf_[row] - 1];
    for (uint32_t i = r.home(column);; i = r.next(i)) {
      if (r.columns()[i] == column) return &r.values()[i];
      if (r.columns()[i] == kEmpty) return nullptr;
    }
  }

  // The value of (row, column), added with T{} when it is not present: one
  // probe for a read-modify-write.
  T& slot(uint32_t row, uint32_t column) {
    if (row > kMaxDenseRow || column == kEmpty) return far_.slot(keyOf(row, column));
    Row& r = rowFor(row);
    if (r.capacity != 0)
      for (uint32_t i = r.home(column);; i = r.next(i)) {
        if (r.columns()[i] == column) return r.values()[i];
        if (r.columns()[i] == kEmpty) {
          if (4 * (uint64_t(r.size) + 1) > 3 * uint64_t(r.capacity)) break;  // grows first
          r.columns()[i] = column;
          ++r.size;
          ++size_;
          return r.values()[i];
        }
      }
    grow(r);
    uint32_t i = r.home(column);
    while (r.columns()[i] != kEmpty) i = r.next(i);
    r.columns()[i] = column;
    ++r.size;
    ++size_;
    return r.values()[i];
  }

  void assign(uint32_t row, uint32_t column, const T& value) { slot(row, column) = value; }

  size_t size() const { return size_ + far_.size(); }
  // The bytes it holds (FENCELINE_MEMSTATS).
  size_t bytes() const {
    size_t total = rowOf_.capacity() * sizeof(uint32_t) + rows_.capacity() * sizeof(Row) + far_.bytes();
    for (const Row& r : rows_) total += size_t(r.capacity) * kSlotBytes;
    return total;
  }

 private:
  static constexpr uint32_t kEmpty = ~uint32_t(0);
  // Rows up to here are indexed by an array (4 bytes a row up to the largest
  // row asked): instruction ids (--max-instructions is 2^19 by default) and
  // set numbers are far below it.
  static constexpr uint32_t kMaxDenseRow = (uint32_t(1) << 24) - 1;
  static constexpr size_t kSlotBytes = sizeof(uint32_t) + sizeof(T);

  // One row's slots: `capacity` columns, then `capacity` values, in one block.
  struct Row {
    std::unique_ptr<unsigned char[]> slots;
    uint32_t capacity = 0;
    uint32_t size = 0;

    uint32_t* columns() const { return reinterpret_cast<uint32_t*>(slots.get()); }
    T* values() const { return reinterpret_cast<T*>(slots.get() + valuesOffset(capacity)); }
    // Fibonacci hashing, the product's high bits scaled to the capacity.
    uint32_t home(uint32_t column) const {
      const uint32_t hash = column * 0x9E3779B9u;
      return static_cast<uint32_t>((uint64_t(hash) * capacity) >> 32);
    }
    uint32_t next(uint32_t i) const { return i + 1 == capacity ? 0 : i + 1; }
  };
  static size_t valuesOffset(uint32_t capacity) {
    const size_t align = alignof(T);
    return (size_t(capacity) * sizeof(uint32_t) + align - 1) / align * align;
  }

  static uint64_t keyOf(uint32_t row, uint32_t column) { return (uint64_t(row) << 32) | column; }

  Row& rowFor(uint32_t row) {
    if (row >= rowOf_.size()) rowOf_.resize(size_t(row) + 1, 0);
    if (rowOf_[row] == 0) {
      rows_.emplace_back();
      rowOf_[row] = static_cast<uint32_t>(rows_.size());
    }
    return rows_[rowOf_[row] - 1];
  }

  static void grow(Row& r) {
    const uint32_t capacity = r.capacity == 0 ? 4 : r.capacity < 64 ? 2 * r.capacity : r.capacity + r.capacity / 2;
    Row bigger;
    bigger.capacity = capacity;
    bigger.size = r.size;
    bigger.slots.reset(new unsigned char[valuesOffset(capacity) + size_t(capacity) * sizeof(T)]);
    std::memset(bigger.slots.get(), 0xff, size_t(capacity) * sizeof(uint32_t));
    for (uint32_t i = 0; i < capacity; ++i) new (&bigger.values()[i]) T{};
    for (uint32_t i = 0; i < r.capacity; ++i) {
      const uint32_t column = r.columns()[i];
      if (column == kEmpty) continue;
      uint32_t j = bigger.home(column);
      while (bigger.columns()[j] != kEmpty) j = bigger.next(j);
      bigger.columns()[j] = column;
      bigger.values()[j] = r.values()[i];
    }
    r = std::move(bigger);
  }

  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "PairTable keeps small plain values");

  std::vector<uint32_t> rowOf_;  // per row number: 1 + its index in rows_, 0 none
  std::vector<Row> rows_;
  size_t size_ = 0;
  PairMap<T> far_;  // rows past kMaxDenseRow, and the column kEmpty
};

}  // namespace fenceline::model
