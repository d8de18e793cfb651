// Byte-level scanners for the parts of a PTX file that the first pass of the
// parser reads without building tokens: function bodies and data sections.
//
// The first pass (ModuleParser, "skipping bodies") reads the module level and
// needs only where each function body ends; a 100 MB file is mostly bodies,
// and nvcc's `-lineinfo` output is mostly `.section .debug_str` byte lists
// (82% of a CUTLASS FP8 GEMM). Going through the lexer costs a Token per
// number; these scanners look at each byte once.
//
// Both are conservative: they agree with the lexer on what they accept
// (comments, strings, the `// begin inline asm` flag, line counting), and
// stop where they meet anything else, so that the token parser takes over
// there and reports errors exactly as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace fenceline::ptx {

class DebugStrings;

// A position in the text as the lexer tracks it.
struct ScanPosition {
  size_t offset = 0;
  uint32_t line = 1;
  size_t lineStart = 0;  // offset of the first byte of `line`
  bool inInlineAsm = false;
};

struct BodyScan {
  bool complete = false;  // false: end of file, an unterminated string or comment
  ScanPosition end;       // just after the closing '}' (when complete)
  // Statements that are instructions (not directives): what the parser will
  // count as Function::instructions for nvcc's output, to size the inlining
  // budget before any body is parsed.
  size_t instructions = 0;
};

// From `open`, the offset of a function body's '{', to its matching '}'.
BodyScan scanBody(std::string_view text, ScanPosition open);

// Consumes the lines of a `.section` from `at` (a token start inside the
// braces) that have nvcc's shape: blank lines, `label:` alone on its line,
// and `.b8 N,N,...,N` of decimal bytes (0..255) ending its line. Bytes are
// added to `strings` (when not null: the section is .debug_str). Returns
// where it stopped: at the closing '}', at the end of the text, or at the
// start of a line of any other shape, for the token parser to read.
ScanPosition scanSectionLines(std::string_view text, ScanPosition at, DebugStrings* strings);

// A variable's initializer list in nvcc's shape, from `at` (just after its
// '{'): decimal integers without sign, suffix or leading zero (at most 18
// digits), separated by commas, blanks and newlines, up to the '}'. The
// values are appended to `values`; returns the position just after the '}',
// or nullopt (nothing appended) for a list of any other shape (nested braces,
// symbols, floats, comments, ...), which the token parser then reads.
std::optional<ScanPosition> scanIntegerList(std::string_view text, ScanPosition at, std::vector<int64_t>& values);

// One `.loc` line in nvcc's shape (a third of the lines of a -lineinfo body):
//   .loc F L C[, function_name LABEL[, inlined_at F L C]]
// with decimal numbers in the token parser's ranges (a file index up to
// INT32_MAX, lines and columns up to UINT32_MAX), blanks between the parts,
// ending its line.
struct LocLine {
  int32_t file = 0;
  uint32_t line = 0, column = 0;
  bool hasFunction = false;
  std::string_view functionLabel;
  bool hasInlinedAt = false;
  int32_t atFile = 0;
  uint32_t atLine = 0, atColumn = 0;
  size_t end = 0;        // offset of the line's newline
  size_t lastToken = 0;  // offset of the line's last token (a number or the label)
  size_t lastTokenLength = 0;
  bool lastIsNumber = true;
};

// Reads the `.loc` at offset `at`; nullopt for a line of any other shape
// (another attribute or order, an octal or suffixed number, a comment, a
// value out of range), which the token parser then reads, errors included.
std::optional<LocLine> scanLocLine(std::string_view text, size_t at);

}  // namespace fenceline::ptx
