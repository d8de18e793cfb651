// A source file as the fix planner reads it: its raw text (edits are byte
// offsets into it), its lines, and the little C++ structure a fix needs:
// a line's indentation, whether a line is inside or uses a macro, and where
// the loop statement holding a line ends. This is a scanner for statements
// as people write them (`while (...) { ... }`, `for (...);`, `do { } while
// (...);`), skipping comments and literals; anything it cannot read with
// certainty yields no edit and a reason instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fenceline::fix {

class SourceLines {
 public:
  explicit SourceLines(std::string text);

  const std::string& text() const { return text_; }
  const std::vector<std::string>& lines() const { return lines_; }
  uint32_t lineCount() const { return static_cast<uint32_t>(lines_.size()); }
  const std::string& line(uint32_t line) const { return lines_[line - 1]; }  // 1-based
  size_t offsetOfLine(uint32_t line) const;                                  // 1-based; lineCount()+1: end of file
  std::string newline() const { return crlf_ ? "\r\n" : "\n"; }
  // The 1-based line and column of a byte offset.
  std::pair<uint32_t, uint32_t> lineColumnOf(size_t offset) const;

  std::string indentationOf(uint32_t line) const;

  // The name of the macro whose expansion the line is (a line of a #define,
  // or a line that uses a statement-like macro #defined in this file), or
  // nullopt.
  std::optional<std::string> macroAt(uint32_t line) const;

  // The first line of the statement that holds `line`: nvcc's .loc of a
  // statement spanning lines (a multi-line asm, a call with wrapped
  // arguments) may name any of them. Going up while the line above does not
  // end a statement (`;`, `{`, `}`, a label, a preprocessor line). nullopt with
  // `why` set when the statement is the unbraced body of an if, else or loop
  // (a line inserted before it would change what the condition guards).
  std::optional<uint32_t> statementStart(uint32_t line, std::string& why) const;

  // The lines [first, last] of the loop statement holding `line` (the nearest
  // `while`/`for`/`do` at or above it whose statement spans it), or, when no
  // loop holds it, the line itself if it is one complete statement (a call
  // whose loop is inside the callee). nullopt with `why` set otherwise.
  std::optional<std::pair<uint32_t, uint32_t>> loopStatementAt(uint32_t line, std::string& why) const;

  // The lines [first, last] of the statement that holds `line` (statementStart, then the end of
  // the statement that starts there, which must end its line). nullopt with `why` set otherwise.
  std::optional<std::pair<uint32_t, uint32_t>> statementAt(uint32_t line, std::string& why) const;

  // The end of the statement that starts on line `line` (its first token): the line it ends on,
  // which it must end. nullopt with `why` set otherwise.
  std::optional<uint32_t> statementEnd(uint32_t line, std::string& why) const;

  // The indentation a line inserted before line `line` gets: that line's, or, when the line
  // only closes a block (`}`), the indentation of the code line above it when that is deeper.
  std::string insertionIndentation(uint32_t line) const;

 private:

  std::string text_;
  std::vector<std::string> lines_;
  std::vector<size_t> lineStarts_;
  bool crlf_ = false;
  // The statement-like macros the file defines, in order (macroAt), found on first use.
  mutable std::optional<std::vector<std::string>> statementMacros_;
};

}  // namespace fenceline::fix
