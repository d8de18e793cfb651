// The PTX lexer: bytes in, tokens out, one at a time.
//
// PTX is nearly free-form, so the lexer keeps no line structure beyond
// positions. Two choices simplify the parser:
//  - An identifier keeps its dots and `::` (`ld.global.u32`, `%tid.x`,
//    `cp.async.bulk.tensor.2d.shared::cluster`); the parser splits opcodes into
//    modifiers. PTX names (registers, symbols, labels) never contain dots.
//  - A directive is `.` followed by name characters but no further dot, so
//    `.reg .b32` is two tokens.
// Comments are skipped, except that `// begin inline asm` and `// end inline
// asm` toggle a flag every later token carries. Bytes that cannot start a
// token (control characters, non-ASCII, NUL) are an error, never undefined
// behaviour: every read is bounds-checked against the view.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ptx/FastScan.h"

namespace fenceline::ptx {

enum class TokenKind : uint8_t {
  End,         // end of input
  Identifier,  // ld.global.u32, %r1, %tid.x, $L__BB0_2, _Z3fooi, p
  Directive,   // .reg, .b32, .debug_str, .shared::cluster
  Integer,     // 12, 0x1F, 017, 0b101, 12U (sign is a separate '-')
  Float,       // 0f3F800000, 0d3FF0000000000000, 1.5, 2e-3
  String,      // "text" (text keeps the quotes)
  Punct,       // one of , ; : { } [ ] ( ) + - ! @ | < > =
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;
  uint32_t offset = 0;  // byte offset of the first character
  uint32_t line = 1;
  uint32_t column = 1;
  bool inInlineAsm = false;

  bool is(char punct) const { return kind == TokenKind::Punct && text.size() == 1 && text[0] == punct; }
  bool isDirective(std::string_view d) const { return kind == TokenKind::Directive && text == d; }
};

class Lexer {
 public:
  // `fail` is called with (offset, line, column, message) and must not return.
  using FailFn = void (*)(void* context, uint32_t offset, uint32_t line, uint32_t column, const std::string& message);

  Lexer(std::string_view text, FailFn fail, void* failContext);

  const Token& peek() const { return current_; }
  Token next();
  // next() without the copy of the token it returns: the caller read peek().
  void consume() {
    if (current_.kind != TokenKind::End) current_ = lex();
  }

  // Scans the rest of the current line, for directives whose syntax is
  // line-based (`.loc`, `.file`): true when a token other than End starts on
  // the same line as `line`.
  bool sameLine(const Token& token, uint32_t line) const { return token.kind != TokenKind::End && token.line == line; }

  std::string_view text() const { return text_; }

  // Where the next token (peek()) starts, with the line and inline-asm state
  // there; seek() goes back (or on) to such a position, or to one a scanner
  // of FastScan.h returned. The parser reads function bodies on demand this way.
  ScanPosition position() const {
    return ScanPosition{current_.offset, current_.line, current_.offset - (current_.column - 1), current_.inInlineAsm};
  }
  void seek(const ScanPosition& at);

 private:
  Token lex();
  void skipTrivia();
  void skipLineComment();
  void skipBlockComment();
  [[noreturn]] void fail(uint32_t offset, uint32_t line, uint32_t column, const std::string& message);
  [[noreturn, gnu::noinline, gnu::cold]] void failUnexpected(char ch, const Token& at);
  [[noreturn, gnu::noinline, gnu::cold]] void failUnterminatedString(const Token& at);
  char at(size_t i) const { return i < text_.size() ? text_[i] : '\0'; }
  void advance(size_t n);

  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t lineStart_ = 0;
  bool inInlineAsm_ = false;
  FailFn fail_;
  void* failContext_;
  Token current_;
};

}  // namespace fenceline::ptx
