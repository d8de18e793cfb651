// See FastScan.h. The rules for comments, strings and the inline-asm flag
// are the lexer's (Lexer.cpp); keep the two in step.
#include "ptx/FastScan.h"

#include "ptx/DebugInfo.h"

namespace fenceline::ptx {
namespace {

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

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
        continue;
      default:
        break;
    }
    if (statement == Statement::None) statement = Statement::Instruction;
  }
  return scan;  // end of file inside the body
}

namespace {

// One line of section data in nvcc's shape, from `i` (its first non-blank
// byte). Returns the offset of the line's newline when the line was taken,
// else npos (nothing consumed).
size_t sectionLine(std::string_view text, size_t i, DebugStrings* strings) {
  const size_t size = text.size();
  auto blanks = [&](size_t j) {
    while (j < size && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;
    return j;
  };
  auto lineEnds = [&](size_t j) { return j < size && text[j] == '\n'; };
  char c = text[i];
  if (c == '.') {
    // `.b8 ` then decimal bytes separated by commas, to the end of the line.
    if (text.substr(i, 3) != ".b8" || i + 3 >= size || (text[i + 3] != ' ' && text[i + 3] != '\t')) return std::string_view::npos;
    // Validate the line first: a line not in this shape is left whole to the
    // token parser. No digits, a leading zero (octal to the lexer), a name
    // character after the digits (a suffix, a hex number) or a value over 255
    // is not.
    size_t j = i + 3;
    for (;;) {
      j = blanks(j);
      size_t digits = j;
      unsigned value = 0;
      while (j < size && text[j] >= '0' && text[j] <= '9' && j - digits < 4) value = value * 10 + (text[j++] - '0');
      size_t length = j - digits;
      bool plain = length > 0 && length < 4 && value <= 255 && !(length > 1 && text[digits] == '0') &&
                   !(j < size && (isNameChar(text[j]) || text[j] == '.'));
      if (!plain) return std::string_view::npos;
      j = blanks(j);
      if (j < size && text[j] == ',') {
        ++j;
        continue;
      }
      if (!lineEnds(j)) return std::string_view::npos;
      break;
    }
    if (strings) {
      // Decode into a buffer, then append the line at once.
      uint8_t bytes[256];
      size_t count = 0;
      unsigned value = 0;
      auto flush = [&] {
        strings->addBytes(bytes, count);
        count = 0;
      };
      for (size_t k = i + 4; k < j; ++k) {
        char d = text[k];
        if (d >= '0' && d <= '9') {
          value = value * 10 + static_cast<unsigned>(d - '0');
        } else if (d == ',') {
          bytes[count++] = static_cast<uint8_t>(value);
          value = 0;
          if (count == sizeof bytes) flush();
        }
      }
      bytes[count++] = static_cast<uint8_t>(value);
      flush();
    }
    return j;
  }
  // `label:` alone on its line.
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%')) return std::string_view::npos;
  size_t j = i + 1;
  while (j < size && isNameChar(text[j])) ++j;
  if (j >= size || text[j] != ':' || (j + 1 < size && text[j + 1] == ':')) return std::string_view::npos;
  size_t end = blanks(j + 1);
  if (!lineEnds(end)) return std::string_view::npos;
  if (strings) strings->beginLabel(text.substr(i, j - i));
  return end;
}

}  // namespace

ScanPosition scanSectionLines(std::string_view text, ScanPosition at, DebugStrings* strings) {
  ScanPosition p = at;
  const size_t size = text.size();
  size_t i = at.offset;
  for (;;) {
    while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) {
      if (text[i] == '\n') ++p.line, p.lineStart = i + 1;
      ++i;
    }
    if (i >= size || text[i] == '}') break;
    size_t newline = sectionLine(text, i, strings);
    if (newline == std::string_view::npos) break;
    i = newline;
  }
  p.offset = i;
  return p;
}

}  // namespace fenceline::ptx
