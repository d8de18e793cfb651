// Debug information in PTX: `.loc` inline chains and `.section .debug_str`.
//
// With -lineinfo, nvcc describes inlining with consecutive `.loc` lines,
// outermost first:
//     .loc 1 15 3
//     .loc 2 130 5, function_name $L__info_string1, inlined_at 1 15 3
//     .loc 3 49 13, function_name $L__info_string2, inlined_at 2 130 5
// The instruction that follows is at 3:49:13 inside the function named by
// $L__info_string2, inlined at 2:130:5 (inside $L__info_string1), inlined at
// 1:15:3. A later `.loc` may name, in its inlined_at, a position set several
// lines earlier; LocationTable links each frame to the most recent frame at
// that position in the current function, so chains stay whole.
//
// Function names live at the end of the file as NUL-terminated byte lists
// (`$L__info_string0: .b8 95,90,...,0`); DebugStrings collects them and
// LocationTable::resolveNames replaces labels by the names they hold at the end
// (linkage names, mangled as the compiler wrote them: model/Demangle makes
// them display names).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ptx/Ast.h"

namespace fenceline::ptx {

// Decoded `.debug_str` strings by label.
class DebugStrings {
 public:
  // Starts a new string under `label` (a label line in the section).
  void beginLabel(std::string_view label);
  // Appends one `.b8` byte to the current string; NUL ends it.
  void addByte(uint8_t byte);
  // addByte for each of `count` bytes.
  void addBytes(const uint8_t* bytes, size_t count);
  // The string under `label`, or nullptr.
  const std::string* find(std::string_view label) const;
  size_t size() const { return strings_.size(); }

 private:
  std::unordered_map<std::string, std::string> strings_;
  std::string* current_ = nullptr;
};

// Builds Module::locations with interning and inline chains.
class LocationTable {
 public:
  explicit LocationTable(std::vector<Location>& locations) : locations_(locations) {}

  // Positions named by inlined_at refer to frames of the same function only.
  void beginFunction() { lastAtPosition_.clear(); }

  // `.loc F L C`
  LocationId plain(int32_t file, uint32_t line, uint32_t column);
  // `.loc F L C, function_name LABEL[, inlined_at F2 L2 C2]`; `functionLabel`
  // must stay valid as long as the table (a view into the PTX text).
  LocationId inlined(int32_t file, uint32_t line, uint32_t column, std::string_view functionLabel,
                     bool hasInlinedAt, int32_t atFile, uint32_t atLine, uint32_t atColumn);

  // Replaces the `$L__info_stringN` labels kept in Location::function by their
  // strings, and names the frames added later the same way at once
  // (`strings` must outlive the table: the .debug_str sections come at the
  // end of the file, and the bodies are read after them). nvcc sometimes
  // emits a label with no bytes (static inline templates of cuda::ptx); such
  // frames get an empty name.
  void resolveNames(const DebugStrings& strings);

 private:
  struct Key {
    int32_t file;
    uint32_t line;
    uint32_t column;
    LocationId inlinedAt;
    std::string_view function;  // the label as written: a view into the PTX text, which outlives the table
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  static uint64_t position(int32_t file, uint32_t line, uint32_t column);
  LocationId intern(Key key);
  // The name under a .debug_str label (once resolveNames was called).
  const std::string& nameOf(std::string_view label);

  std::vector<Location>& locations_;
  std::unordered_map<Key, LocationId, KeyHash> interned_;
  std::unordered_map<uint64_t, LocationId> lastAtPosition_;
  const DebugStrings* strings_ = nullptr;
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  std::unordered_map<std::string, std::string, NameHash, std::equal_to<>> names_;  // by label
};

}  // namespace fenceline::ptx
