// The PTX lexer (see Lexer.h). A character-class table drives the hot loop;
// `.debug_str` sections make most of a large file a run of numbers and commas.
#include "ptx/Lexer.h"

#include <array>

namespace fenceline::ptx {
namespace {

enum CharClass : uint8_t {
  kInvalid = 0,
  kSpace = 1,      // space, tab, CR, VT, FF
  kNewline = 2,
  kLetter = 4,     // may start an identifier: A-Z a-z _ $ %
  kDigit = 8,
  kPunct = 16,
  kOther = 32,     // '.', '"', '/'
};

constexpr std::array<uint8_t, 256> makeClasses() {
  std::array<uint8_t, 256> c{};
  c[' '] = c['\t'] = c['\r'] = c['\v'] = c['\f'] = kSpace;
  c['\n'] = kNewline;
  for (int i = 'a'; i <= 'z'; ++i) c[i] = kLetter;
  for (int i = 'A'; i <= 'Z'; ++i) c[i] = kLetter;
  c['_'] = c['$'] = c['%'] = kLetter;
  for (int i = '0'; i <= '9'; ++i) c[i] = kDigit;
  for (char p : std::string_view(",;:{}[]()+-!@|<>=")) c[static_cast<unsigned char>(p)] = kPunct;
  c['.'] = c['"'] = c['/'] = kOther;
  return c;
}
constexpr std::array<uint8_t, 256> kClasses = makeClasses();

uint8_t classOf(char ch) { return kClasses[static_cast<unsigned char>(ch)]; }

// Characters that continue a name: letters, digits, _ $ (not %). One table
// read per character: names are most of the bytes of a body.
constexpr std::array<bool, 256> makeNameChars() {
  std::array<bool, 256> c{};
  for (int i = 0; i < 256; ++i) c[i] = (kClasses[i] & (kLetter | kDigit)) && i != '%';
  return c;
}
constexpr std::array<bool, 256> kNameChars = makeNameChars();
bool isNameChar(char ch) { return kNameChars[static_cast<unsigned char>(ch)]; }
// Name characters and '.', which continue an identifier (`ld.global.u32`).
constexpr std::array<bool, 256> makeIdentifierChars() {
  std::array<bool, 256> c = makeNameChars();
  c['.'] = true;
  return c;
}
constexpr std::array<bool, 256> kIdentifierChars = makeIdentifierChars();

}  // namespace

Lexer::Lexer(std::string_view text, FailFn fail, void* failContext)
    : text_(text), fail_(fail), failContext_(failContext) {
  current_ = lex();
}

Token Lexer::next() {
  Token t = current_;
  if (t.kind != TokenKind::End) current_ = lex();
  return t;
}

void Lexer::seek(const ScanPosition& at) {
  pos_ = at.offset < text_.size() ? at.offset : text_.size();
  line_ = at.line;
  lineStart_ = at.lineStart;
  inInlineAsm_ = at.inInlineAsm;
  current_ = lex();
}

void Lexer::fail(uint32_t offset, uint32_t line, uint32_t column, const std::string& message) {
  fail_(failContext_, offset, line, column, message);
  // fail_ must throw; stop here if it did not.
  std::abort();
}

// The error paths of lex(), out of line: their strings would otherwise make
// every call of lex() pay for a larger frame.
void Lexer::failUnexpected(char ch, const Token& at) {
  std::string shown;
  unsigned char u = static_cast<unsigned char>(ch);
  if (u >= 0x20 && u < 0x7f) shown = std::string("'") + ch + "'";
  else {
    static const char* hex = "0123456789abcdef";
    shown = std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
  }
  fail(at.offset, at.line, at.column, "unexpected character " + shown);
}

void Lexer::failUnterminatedString(const Token& at) { fail(at.offset, at.line, at.column, "unterminated string"); }

void Lexer::advance(size_t n) {
  for (size_t i = 0; i < n && pos_ < text_.size(); ++i, ++pos_) {
    if (text_[pos_] == '\n') {
      ++line_;
      lineStart_ = pos_ + 1;
    }
  }
}

void Lexer::skipLineComment() {
  size_t start = pos_ + 2;
  size_t end = text_.find('\n', start);
  if (end == std::string_view::npos) end = text_.size();
  std::string_view body = text_.substr(start, end - start);
  // nvcc writes "\t// begin inline asm" and "\t// end inline asm".
  size_t first = body.find_first_not_of(" \t");
  if (first != std::string_view::npos) {
    body = body.substr(first);
    if (body.starts_with("begin inline asm")) inInlineAsm_ = true;
    else if (body.starts_with("end inline asm")) inInlineAsm_ = false;
  }
  pos_ = end;  // the newline itself is counted by skipTrivia
}

void Lexer::skipBlockComment() {
  uint32_t line = line_;
  uint32_t column = static_cast<uint32_t>(pos_ - lineStart_ + 1);
  size_t startOffset = pos_;
  size_t end = text_.find("*/", pos_ + 2);
  if (end == std::string_view::npos) fail(static_cast<uint32_t>(startOffset), line, column, "unterminated /* comment");
  advance(end + 2 - pos_);
}

void Lexer::skipTrivia() {
  while (pos_ < text_.size()) {
    char ch = text_[pos_];
    uint8_t cls = classOf(ch);
    if (cls == kSpace) {
      ++pos_;
    } else if (cls == kNewline) {
      ++pos_;
      ++line_;
      lineStart_ = pos_;
    } else if (ch == '/' && at(pos_ + 1) == '/') {
      skipLineComment();
    } else if (ch == '/' && at(pos_ + 1) == '*') {
      skipBlockComment();
    } else {
      return;
    }
  }
}

Token Lexer::lex() {
  skipTrivia();
  Token t;
  t.offset = static_cast<uint32_t>(pos_);
  t.line = line_;
  t.column = static_cast<uint32_t>(pos_ - lineStart_ + 1);
  t.inInlineAsm = inInlineAsm_;
  if (pos_ >= text_.size()) {
    t.kind = TokenKind::End;
    return t;
  }
  size_t start = pos_;
  char ch = text_[pos_];
  uint8_t cls = classOf(ch);

  // A name continues through name characters, and (for identifiers) dots and
  // `::` between name parts.
  // (The position in a local: the compiler keeps it in a register.)
  auto scanName = [&](bool allowDots) {
    const std::array<bool, 256>& continues = allowDots ? kIdentifierChars : kNameChars;
    const char* data = text_.data();
    const size_t size = text_.size();
    size_t p = pos_;
    for (;;) {
      while (p < size && continues[static_cast<unsigned char>(data[p])]) ++p;
      if (p + 2 < size && data[p] == ':' && data[p + 1] == ':' && isNameChar(data[p + 2])) p += 2;
      else break;
    }
    pos_ = p;
  };

  if (cls == kLetter) {
    ++pos_;
    scanName(true);
    t.kind = TokenKind::Identifier;
  } else if (ch == '.' && isNameChar(at(pos_ + 1))) {
    ++pos_;
    scanName(false);
    t.kind = TokenKind::Directive;
  } else if (cls == kDigit || (ch == '.' && classOf(at(pos_ + 1)) == kDigit)) {
    // Numbers: hex/binary/octal/decimal integers with optional U suffix,
    // 0f/0d hexadecimal floats, decimal floats with optional exponent. The
    // parser validates the spelling; here we only find its end.
    t.kind = TokenKind::Integer;
    bool hexLike = ch == '0' && (at(pos_ + 1) == 'x' || at(pos_ + 1) == 'X' || at(pos_ + 1) == 'f' ||
                                 at(pos_ + 1) == 'F' || at(pos_ + 1) == 'd' || at(pos_ + 1) == 'D');
    if (hexLike && (at(pos_ + 1) != 'x' && at(pos_ + 1) != 'X')) t.kind = TokenKind::Float;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (isNameChar(c)) {
        ++pos_;
        if (!hexLike && (c == 'e' || c == 'E') && (at(pos_) == '+' || at(pos_) == '-')) {
          t.kind = TokenKind::Float;
          ++pos_;
        }
      } else if (c == '.' && !hexLike) {
        t.kind = TokenKind::Float;
        ++pos_;
      } else {
        break;
      }
    }
    if (!hexLike) {
      for (char c : text_.substr(start, pos_ - start))
        if (c == 'e' || c == 'E') t.kind = TokenKind::Float;
    }
  } else if (cls == kPunct) {
    ++pos_;
    t.kind = TokenKind::Punct;
  } else if (ch == '"') {
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size() && text_[pos_ + 1] != '\n') ++pos_;
      ++pos_;
    }
    if (pos_ >= text_.size() || text_[pos_] != '"') failUnterminatedString(t);
    ++pos_;
    t.kind = TokenKind::String;
  } else {
    failUnexpected(ch, t);
  }
  t.text = text_.substr(start, pos_ - start);
  return t;
}

}  // namespace fenceline::ptx
