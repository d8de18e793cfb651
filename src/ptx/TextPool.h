// Storage for the names the syntax tree refers to. An operand's text (a
// register, special register, symbol or label name) is a view into its
// function's TextPool, and an instruction's opcode and modifiers are views into
// one interned Spelling, so a syntax-tree node holds 16-byte views instead of
// std::strings: the tree of a 47,000-instruction function is about half the
// size it was with strings (docs/performance.md, "Peak memory").
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace fenceline::ptx {

// Append-only text of one function body: each distinct string is stored once
// (while the body is parsed) and never moves, so views stay valid as long as
// the pool lives. Functions share their pool through a shared_ptr, so a copy of
// a Function keeps its operands' text alive.
class TextPool {
 public:
  // A view of a copy of `text` that lives as long as the pool.
  std::string_view intern(std::string_view text);
  // The same without looking for an equal string or indexing this one (the
  // names of a register range, distinct by construction: millions, at most).
  std::string_view store(std::string_view text);
  // Drops the index that finds equal strings (the body is parsed): the stored
  // text stays, a later intern() stores its text again.
  void forgetIndex() { index_ = {}; }
  size_t bytesHeld() const { return bytesHeld_; }

 private:
  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t used_ = 0;       // in the last chunk
  size_t capacity_ = 0;   // of the last chunk
  size_t bytesHeld_ = 0;  // chunks allocated
  std::unordered_set<std::string_view> index_;
};

// An instruction's opcode and modifiers ("cp.async.bulk.tensor.2d" ->
// "cp", {"async", "bulk", "tensor", "2d"}), interned for the whole process:
// the spellings are PTX's vocabulary, a few thousand at most, and never freed.
struct Spelling {
  std::string_view opcode;
  std::vector<std::string_view> modifiers;
};

// The interned spelling of `spelled` (modifiers after dots, none empty;
// callers check). Thread-safe.
const Spelling& internSpelling(std::string_view spelled);

}  // namespace fenceline::ptx
