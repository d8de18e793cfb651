// See FastScan.h. The rules for comments, strings and the inline-asm flag
// are the lexer's (Lexer.cpp); keep the two in step.
#include "ptx/FastScan.h"

#include <array>
#include <vector>

#include "ptx/DebugInfo.h"

namespace fenceline::ptx {
namespace {

// Characters that continue a name (letters, digits, '_', '$'), one load per
// byte: the scanners' inner loops ask this of every byte of a label.
constexpr std::array<bool, 256> makeNameChars() {
  std::array<bool, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = true;
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  table['_'] = table['$'] = true;
  return table;
}
constexpr std::array<bool, 256> kNameChars = makeNameChars();

bool isNameChar(char c) { return kNameChars[static_cast<unsigned char>(c)]; }

// Bytes that leave scanBody's state as it is once a statement has begun
// (blanks, '.', name and operand characters): all but the newline, braces,
// ';', ':', '"' and '/'. The scan skips runs of them in a tight loop.
constexpr std::array<bool, 256> makeInertInStatement() {
  std::array<bool, 256> table{};
  for (auto& inert : table) inert = true;
  for (char c : std::string_view("\n{};:\"/")) table[static_cast<unsigned char>(c)] = false;
  return table;
}
constexpr std::array<bool, 256> kInertInStatement = makeInertInStatement();

// What the lexer does on a `//` comment: `// begin inline asm` and
// `// end inline asm` set the flag. Returns the offset of the newline (or the end).
size_t skipLineComment(std::string_view text, size_t at, bool& inInlineAsm) {
  size_t end = text.find('\n', at + 2);
  if (end == std::string_view::npos) end = text.size();
  std::string_view body = text.substr(at + 2, end - at - 2);
  size_t first = body.find_first_not_of(" \t");
  if (first != std::string_view::npos) {
    body = body.substr(first);
    if (body.starts_with("begin inline asm")) inInlineAsm = true;
    else if (body.starts_with("end inline asm")) inInlineAsm = false;
  }
  return end;
}

// How the scan of a body classifies the statement it is in, to count
// instructions the way the body parser does (BodyParser.cpp,
// parseBodyStatement): a directive is not one, nor a label, nor a block.
enum class Statement : uint8_t {
  None,         // between statements
  Directive,    // `.reg ...;`, `.pragma ...;`, `.shared ...;`
  Loc,          // `.loc ...` ends at its line's end
  Instruction,  // an opcode, a guard, or a label (ended by ':')
};

}  // namespace

BodyScan scanBody(std::string_view text, ScanPosition open) {
  BodyScan scan;
  ScanPosition p = open;
  size_t depth = 0;
  Statement statement = Statement::None;
  const size_t size = text.size();
  for (size_t i = open.offset; i < size; ++i) {
    char c = text[i];
    switch (c) {
      case '\n':
        ++p.line;
        p.lineStart = i + 1;
        if (statement == Statement::Loc) statement = Statement::None;
        continue;
      case ' ': case '\t': case '\r': case '\v': case '\f':
        continue;
      // Braces open and close blocks between statements, and vector
      // operands (`{%f1, %f2}`) inside an instruction.
      case '{':
        ++depth;
        if (statement != Statement::Instruction) statement = Statement::None;
        continue;
      case '}':
        if (statement != Statement::Instruction) statement = Statement::None;
        if (--depth > 0) continue;
        scan.complete = true;
        p.offset = i + 1;
        scan.end = p;
        return scan;
      case ';':
        if (statement == Statement::Instruction) ++scan.instructions;
        statement = Statement::None;
        continue;
      case ':':
        if (i + 1 < size && text[i + 1] == ':') ++i;  // `::` inside a name
        else if (statement == Statement::Instruction) statement = Statement::None;  // a label
        continue;
      case '"':
        // A string ends on its line; a backslash escapes the next byte.
        for (++i; i < size && text[i] != '"' && text[i] != '\n'; ++i)
          if (text[i] == '\\' && i + 1 < size && text[i + 1] != '\n') ++i;
        if (i >= size || text[i] != '"') return scan;  // unterminated: the parser says so
        if (statement == Statement::None) statement = Statement::Instruction;
        continue;
      case '/':
        if (i + 1 < size && text[i + 1] == '/') {
          i = skipLineComment(text, i, p.inInlineAsm) - 1;  // the newline is counted next
          continue;
        }
        if (i + 1 < size && text[i + 1] == '*') {
          size_t end = text.find("*/", i + 2);
          if (end == std::string_view::npos) return scan;
          for (size_t j = i; j < end; ++j)
            if (text[j] == '\n') ++p.line, p.lineStart = j + 1;
          i = end + 1;
          continue;
        }
        break;
      case '.':
        if (statement == Statement::None) {
          bool isLoc = text.substr(i, 4) == ".loc" && !(i + 4 < size && isNameChar(text[i + 4]));
          statement = isLoc ? Statement::Loc : Statement::Directive;
        }
        break;
      default:
        break;
    }
    if (statement == Statement::None) statement = Statement::Instruction;
    // A statement has begun: up to the next byte that can change the state,
    // every byte would be a no-op of the switch above.
    while (i + 1 < size && kInertInStatement[static_cast<unsigned char>(text[i + 1])]) ++i;
  }
  return scan;  // end of file inside the body
}

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The value of a decimal digit, else a number over 9.
unsigned digitValue(char c) { return static_cast<unsigned>(static_cast<unsigned char>(c) - '0'); }

size_t skipBlanks(std::string_view text, size_t j) {
  while (j < text.size() && isBlank(text[j])) ++j;
  return j;
}

// The decimal bytes of a `.b8` line from `from` (just after `.b8`), separated
// by commas, to the end of the line, decoded into `bytes` as they are read
// (one pass: these lines are most of a CUTLASS file). Returns the offset of
// the line's newline, or npos when the line is not in this shape, to be left
// whole to the token parser: no digits, a leading zero (octal to the lexer),
// a name character after the digits (a suffix, a hex number, a fourth digit),
// a value over 255, or no newline.
size_t byteListLine(std::string_view text, size_t from, std::vector<uint8_t>& bytes) {
  size_t newline = text.find('\n', from);
  if (newline == std::string_view::npos) return std::string_view::npos;
  // At most one value per two bytes of the line ("1,"): room for all of them.
  bytes.resize((newline - from) / 2 + 1);
  uint8_t* out = bytes.data();
  // The newline stops every loop below: no other bound is needed.
  const char* p = text.data() + from;
  for (;;) {
    unsigned value = digitValue(*p);
    if (value > 9) {
      while (isBlank(*p)) ++p;
      value = digitValue(*p);
      if (value > 9) return std::string_view::npos;
    }
    ++p;
    if (unsigned digit = digitValue(*p); digit <= 9) {
      if (value == 0) return std::string_view::npos;
      value = value * 10 + digit;
      ++p;
      if (digit = digitValue(*p); digit <= 9) {
        value = value * 10 + digit;
        ++p;
        if (value > 255) return std::string_view::npos;
      }
    }
    *out++ = static_cast<uint8_t>(value);
    if (*p == ',') {  // nvcc's shape: no blanks around the commas
      ++p;
      continue;
    }
    if (isNameChar(*p) || *p == '.') return std::string_view::npos;
    while (isBlank(*p)) ++p;
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p != '\n') return std::string_view::npos;
    bytes.resize(static_cast<size_t>(out - bytes.data()));
    return newline;
  }
}

// One line of section data in nvcc's shape, from `i` (its first non-blank
// byte). Returns the offset of the line's newline when the line was taken,
// else npos (nothing consumed). `bytes` is scratch space for a `.b8` line.
size_t sectionLine(std::string_view text, size_t i, DebugStrings* strings, std::vector<uint8_t>& bytes) {
  const size_t size = text.size();
  char c = text[i];
  if (c == '.') {
    if (text.substr(i, 3) != ".b8" || i + 3 >= size || (text[i + 3] != ' ' && text[i + 3] != '\t')) return std::string_view::npos;
    size_t newline = byteListLine(text, i + 3, bytes);
    if (newline != std::string_view::npos && strings) strings->addBytes(bytes.data(), bytes.size());
    return newline;
  }
  // `label:` alone on its line.
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%')) return std::string_view::npos;
  size_t j = i + 1;
  while (j < size && isNameChar(text[j])) ++j;
  if (j >= size || text[j] != ':' || (j + 1 < size && text[j + 1] == ':')) return std::string_view::npos;
  size_t end = skipBlanks(text, j + 1);
  if (end >= size || text[end] != '\n') return std::string_view::npos;
  if (strings) strings->beginLabel(text.substr(i, j - i));
  return end;
}

// A token of a `.loc` line: where it starts and how long it is.
struct Span {
  size_t start = 0;
  size_t length = 0;
};

// The `.loc` scanner's cursor: `p` moves over the line; every read is at
// most at the line's newline, which stops each loop.
class LocCursor {
 public:
  LocCursor(std::string_view text, size_t from) : text_(text), p_(from) {}

  void skipBlanks() {
    while (isBlank(text_[p_])) ++p_;
  }
  // A decimal number up to `max` that ends at a blank, ',' or the newline.
  bool number(uint64_t max, uint64_t& value) {
    skipBlanks();
    size_t start = p_;
    value = 0;
    while (digitValue(text_[p_]) <= 9 && p_ - start < 10) value = value * 10 + digitValue(text_[p_++]);
    size_t length = p_ - start;
    if (length == 0 || (length > 1 && text_[start] == '0') || value > max || !endsToken()) return false;
    last_ = {start, length};
    lastIsNumber_ = true;
    return true;
  }
  // A name of letters, digits, '_' and '$' (not starting with a digit) that
  // ends at a blank, ',' or the newline.
  bool name(std::string_view& value) {
    skipBlanks();
    size_t start = p_;
    if (digitValue(text_[p_]) <= 9 || !isNameChar(text_[p_])) return false;
    while (isNameChar(text_[p_])) ++p_;
    if (!endsToken()) return false;
    value = text_.substr(start, p_ - start);
    last_ = {start, p_ - start};
    lastIsNumber_ = false;
    return true;
  }
  bool keyword(std::string_view word) {
    std::string_view found;
    return name(found) && found == word;
  }
  bool comma() {
    skipBlanks();
    if (text_[p_] != ',') return false;
    ++p_;
    return true;
  }
  bool atNewline() {
    skipBlanks();
    return text_[p_] == '\n';
  }
  size_t offset() const { return p_; }
  Span last() const { return last_; }
  bool lastIsNumber() const { return lastIsNumber_; }

 private:
  bool endsToken() const { return isBlank(text_[p_]) || text_[p_] == ',' || text_[p_] == '\n'; }

  std::string_view text_;
  size_t p_;
  Span last_;
  bool lastIsNumber_ = true;
};

}  // namespace

std::optional<LocLine> scanLocLine(std::string_view text, size_t at) {
  size_t newline = text.find('\n', at);
  if (newline == std::string_view::npos || text.substr(at, 4) != ".loc" || at + 4 >= newline || !isBlank(text[at + 4]))
    return std::nullopt;
  LocCursor cursor(text.substr(0, newline + 1), at + 4);
  LocLine loc;
  uint64_t file, line, column;
  if (!cursor.number(INT32_MAX, file) || !cursor.number(UINT32_MAX, line) || !cursor.number(UINT32_MAX, column))
    return std::nullopt;
  loc.file = static_cast<int32_t>(file);
  loc.line = static_cast<uint32_t>(line);
  loc.column = static_cast<uint32_t>(column);
  if (cursor.comma()) {
    if (!cursor.keyword("function_name") || !cursor.name(loc.functionLabel)) return std::nullopt;
    loc.hasFunction = true;
    if (cursor.comma()) {
      if (!cursor.keyword("inlined_at") || !cursor.number(INT32_MAX, file) || !cursor.number(UINT32_MAX, line) ||
          !cursor.number(UINT32_MAX, column))
        return std::nullopt;
      loc.hasInlinedAt = true;
      loc.atFile = static_cast<int32_t>(file);
      loc.atLine = static_cast<uint32_t>(line);
      loc.atColumn = static_cast<uint32_t>(column);
    }
  }
  if (!cursor.atNewline()) return std::nullopt;
  loc.end = cursor.offset();
  loc.lastToken = cursor.last().start;
  loc.lastTokenLength = cursor.last().length;
  loc.lastIsNumber = cursor.lastIsNumber();
  return loc;
}

std::optional<ScanPosition> scanIntegerList(std::string_view text, ScanPosition at, std::vector<int64_t>& values) {
  constexpr size_t kMaxDigits = 18;  // below 2^63: what the lexer's integers hold as they are
  ScanPosition p = at;
  const size_t size = text.size();
  const size_t first = values.size();
  auto giveUp = [&] {
    values.resize(first);
    return std::nullopt;
  };
  size_t i = at.offset;
  auto skipSpace = [&] {
    while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) {
      if (text[i] == '\n') ++p.line, p.lineStart = i + 1;
      ++i;
    }
  };
  for (;;) {
    skipSpace();
    size_t start = i;
    int64_t value = 0;
    while (i < size && digitValue(text[i]) <= 9 && i - start < kMaxDigits) value = value * 10 + digitValue(text[i++]);
    size_t length = i - start;
    if (length == 0 || length > kMaxDigits || (length > 1 && text[start] == '0')) return giveUp();
    if (i < size && (isNameChar(text[i]) || text[i] == '.')) return giveUp();  // a suffix, a float
    values.push_back(value);
    skipSpace();
    if (i < size && text[i] == ',') {
      ++i;
      continue;
    }
    if (i < size && text[i] == '}') break;
    return giveUp();
  }
  p.offset = i + 1;
  return p;
}

ScanPosition scanSectionLines(std::string_view text, ScanPosition at, DebugStrings* strings) {
  ScanPosition p = at;
  const size_t size = text.size();
  size_t i = at.offset;
  std::vector<uint8_t> bytes;
  bytes.reserve(256);
  for (;;) {
    while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) {
      if (text[i] == '\n') ++p.line, p.lineStart = i + 1;
      ++i;
    }
    if (i >= size || text[i] == '}') break;
    size_t newline = sectionLine(text, i, strings, bytes);
    if (newline == std::string_view::npos) break;
    i = newline;
  }
  p.offset = i;
  return p;
}

}  // namespace fenceline::ptx
