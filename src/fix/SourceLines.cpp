// Reading a source file for fixes: see SourceLines.h.
#include "fix/SourceLines.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace fenceline::fix {

namespace {

bool isIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string trimmed(const std::string& line) {
  size_t begin = line.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  size_t end = line.find_last_not_of(" \t\r");
  return line.substr(begin, end - begin + 1);
}

bool startsWithKeyword(const std::string& text, const std::string& keyword) {
  return text.starts_with(keyword) && (text.size() == keyword.size() || !isIdentifierChar(text[keyword.size()]));
}

// A cursor over the file's text that skips comments, string and character
// literals and preprocessor lines.
class Scanner {
 public:
  Scanner(const std::string& text, size_t at) : text_(text), at_(at) {}

  // The next significant character (or '\0' at the end), consumed.
  char next() {
    skipInsignificant();
    return at_ < text_.size() ? text_[at_++] : '\0';
  }
  char peek() {
    skipInsignificant();
    return at_ < text_.size() ? text_[at_] : '\0';
  }
  size_t position() const { return at_; }
  // Consumes an identifier at the cursor, if any.
  std::string identifier() {
    skipInsignificant();
    size_t begin = at_;
    while (at_ < text_.size() && isIdentifierChar(text_[at_])) ++at_;
    return text_.substr(begin, at_ - begin);
  }
  // After an opening `open` was consumed: consumes up to its matching `close`. False at the end of the text.
  bool skipBalanced(char open, char close) {
    for (int depth = 1; depth > 0;) {
      char c = next();
      if (c == '\0') return false;
      if (c == '"' || c == '\'') {
        skipLiteral(c);
        continue;
      }
      if (c == open) ++depth;
      if (c == close) --depth;
    }
    return true;
  }
  // Consumes a statement: a block, an if/for/while/do statement with its
  // body, or tokens up to the `;` that ends it (outside parentheses and braces).
  bool skipStatement() {
    size_t start = at_;
    std::string keyword = identifier();
    if (keyword == "if") {
      if (next() != '(' || !skipBalanced('(', ')') || !skipStatement()) return false;
      size_t afterBody = at_;
      if (identifier() == "else") return skipStatement();
      at_ = afterBody;
      return true;
    }
    if (keyword == "for" || keyword == "while") return next() == '(' && skipBalanced('(', ')') && skipStatement();
    if (keyword == "do")
      return skipStatement() && identifier() == "while" && next() == '(' && skipBalanced('(', ')') && next() == ';';
    at_ = start;
    char c = next();
    if (c == '{') return skipBalanced('{', '}');
    for (; c != '\0'; c = next()) {
      if (c == ';') return true;
      if (c == '"' || c == '\'') skipLiteral(c);
      else if (c == '(' && !skipBalanced('(', ')')) return false;
      else if (c == '{' && !skipBalanced('{', '}')) return false;
    }
    return false;
  }

 private:
  void skipLiteral(char quote) {
    while (at_ < text_.size() && text_[at_] != quote) at_ += text_[at_] == '\\' ? 2 : 1;
    ++at_;
  }
  void skipInsignificant() {
    while (at_ < text_.size()) {
      char c = text_[at_];
      if (std::isspace(static_cast<unsigned char>(c))) ++at_;
      else if (text_.compare(at_, 2, "//") == 0) at_ = std::min(text_.find('\n', at_), text_.size());
      else if (text_.compare(at_, 2, "/*") == 0) at_ = std::min(text_.find("*/", at_ + 2), text_.size() - 2) + 2;
      else break;
    }
  }

  const std::string& text_;
  size_t at_;
};

}  // namespace

SourceLines::SourceLines(std::string text) : text_(std::move(text)) {
  size_t begin = 0;
  while (begin < text_.size()) {
    lineStarts_.push_back(begin);
    size_t end = text_.find('\n', begin);
    if (end == std::string::npos) end = text_.size();
    std::string line = text_.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
      crlf_ = true;
    }
    lines_.push_back(std::move(line));
    begin = end + 1;
  }
}

size_t SourceLines::offsetOfLine(uint32_t line) const {
  if (line == 0) return 0;
  if (line > lineStarts_.size()) return text_.size();
  return lineStarts_[line - 1];
}

std::pair<uint32_t, uint32_t> SourceLines::lineColumnOf(size_t offset) const {
  auto after = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  uint32_t line = static_cast<uint32_t>(after - lineStarts_.begin());
  if (line == 0) return {1, 1};
  return {line, static_cast<uint32_t>(offset - lineStarts_[line - 1] + 1)};
}

std::string SourceLines::indentationOf(uint32_t line) const {
  const std::string& text = this->line(line);
  return text.substr(0, text.find_first_not_of(" \t"));
}

namespace {

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The name a `#define NAME` line defines (`^\s*#\s*define\s+(\w+)`), or empty.
std::string_view definedMacro(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && isSpace(line[i])) ++i;
  if (i == line.size() || line[i] != '#') return {};
  ++i;
  while (i < line.size() && isSpace(line[i])) ++i;
  if (line.substr(i, 6) != "define") return {};
  i += 6;
  const size_t spaces = i;
  while (i < line.size() && isSpace(line[i])) ++i;
  if (i == spaces) return {};
  const size_t name = i;
  while (i < line.size() && isWordChar(line[i])) ++i;
  return line.substr(name, i - name);
}

// `word` occurs in `text` as a whole word (`\bword\b`; word is made of word characters).
bool containsWord(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool before = at == 0 || !isWordChar(text[at - 1]);
    const bool after = at + word.size() == text.size() || !isWordChar(text[at + word.size()]);
    if (before && after) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> SourceLines::macroAt(uint32_t line) const {
  auto continues = [&](uint32_t l) { return l >= 1 && l <= lineCount() && trimmed(this->line(l)).ends_with("\\"); };
  if (continues(line) || continues(line - 1)) {
    for (uint32_t l = line; l >= 1; --l) {
      if (std::string_view name = definedMacro(this->line(l)); !name.empty()) return std::string(name);
      if (l < line && !continues(l)) break;
    }
    return "a macro";
  }
  // Statement-like macros defined in this file (their body holds a ';'),
  // found once per file; the first used on the line.
  if (!statementMacros_) {
    statementMacros_.emplace();
    for (uint32_t l = 1; l <= lineCount(); ++l) {
      const std::string_view name = definedMacro(this->line(l));
      if (name.empty()) continue;
      bool statement = false;
      for (uint32_t body = l; body <= lineCount(); ++body) {
        statement = statement || this->line(body).find(';') != std::string::npos;
        if (!continues(body)) break;
      }
      if (statement) statementMacros_->emplace_back(name);
    }
  }
  for (const std::string& name : *statementMacros_)
    if (containsWord(this->line(line), name)) return name;
  return std::nullopt;
}

namespace {

// A line's code without its trailing // comment, trimmed.
std::string codeOf(const std::string& line) { return trimmed(line.substr(0, line.find("//"))); }

bool endsStatement(const std::string& code) {
  if (code.empty()) return false;
  if (code.front() == '#') return true;
  char last = code.back();
  return last == ';' || last == '{' || last == '}' || (last == ':' && !code.ends_with("::"));
}

bool endsWithKeyword(const std::string& code, const std::string& keyword) {
  return code.ends_with(keyword) &&
         (code.size() == keyword.size() || !isIdentifierChar(code[code.size() - keyword.size() - 1]));
}

}  // namespace

std::optional<uint32_t> SourceLines::statementStart(uint32_t line, std::string& why) const {
  constexpr uint32_t kMaxStatementLines = 20;
  for (uint32_t first = line; first >= 1 && first + kMaxStatementLines > line; --first) {
    // The nearest line above with code on it.
    uint32_t above = first - 1;
    while (above >= 1 && (codeOf(this->line(above)).empty() || codeOf(this->line(above)).starts_with("/*") ||
                          codeOf(this->line(above)).starts_with("*")))
      --above;
    const std::string own = codeOf(this->line(first));
    if (startsWithKeyword(own, "else") || startsWithKeyword(own, "} else")) {
      why = "the fix point is on an else line (an unbraced else body); add braces, then --fix";
      return std::nullopt;
    }
    if (above == 0) return first;
    const std::string code = codeOf(this->line(above));
    if (endsStatement(code)) return first;
    if (endsWithKeyword(code, "else") || endsWithKeyword(code, "do")) {
      why = "the fix point is the unbraced body of an else or do; add braces, then --fix";
      return std::nullopt;
    }
    if (startsWithKeyword(code, "if") || startsWithKeyword(code, "} else") || startsWithKeyword(code, "else") ||
        startsWithKeyword(code, "for") || startsWithKeyword(code, "while")) {
      why = fmt::format("the fix point is the unbraced body of the statement on line {}; add braces, then --fix",
                        above);
      return std::nullopt;
    }
  }
  why = "the start of the statement holding the fix point was not found";
  return std::nullopt;
}

std::optional<uint32_t> SourceLines::statementEnd(uint32_t line, std::string& why) const {
  Scanner scan(text_, offsetOfLine(line));
  bool parsed = scan.skipStatement();
  if (!parsed) {
    why = fmt::format("the statement on line {} could not be read", line);
    return std::nullopt;
  }
  auto [endLine, endColumn] = lineColumnOf(scan.position() - 1);
  // The loop must end its line, so that the new line goes right after it.
  if (!trimmed(this->line(endLine).substr(endColumn)).empty() &&
      !trimmed(this->line(endLine).substr(endColumn)).starts_with("//")) {
    why = fmt::format("the statement that starts on line {} ends in the middle of line {}", line, endLine);
    return std::nullopt;
  }
  return endLine;
}

std::optional<std::pair<uint32_t, uint32_t>> SourceLines::statementAt(uint32_t line, std::string& why) const {
  auto start = statementStart(line, why);
  if (!start) return std::nullopt;
  auto end = statementEnd(*start, why);
  if (!end) return std::nullopt;
  if (*end < line) {
    why = fmt::format("the statement that starts on line {} ends on line {}, above the fix point (line {})", *start,
                      *end, line);
    return std::nullopt;
  }
  return std::pair{*start, *end};
}

std::string SourceLines::insertionIndentation(uint32_t line) const {
  if (line < 1 || line > lineCount()) return "";
  const std::string own = indentationOf(line);
  if (codeOf(this->line(line)).starts_with("}")) {
    for (uint32_t above = line - 1; above >= 1; --above) {
      const std::string code = codeOf(this->line(above));
      if (code.empty()) continue;
      const std::string indentation = indentationOf(above);
      return indentation.size() > own.size() ? indentation : own + "  ";
    }
  }
  return own;
}

std::optional<std::pair<uint32_t, uint32_t>> SourceLines::loopStatementAt(uint32_t line, std::string& why) const {
  constexpr uint32_t kLinesAbove = 30;  // how far above the poll a loop header is looked for
  for (uint32_t first = line; first >= 1 && first + kLinesAbove >= line; --first) {
    std::string text = trimmed(this->line(first));
    if (!startsWithKeyword(text, "while") && !startsWithKeyword(text, "for") && !startsWithKeyword(text, "do"))
      continue;
    std::string ignored;
    // The statement starts at the keyword, which may follow indentation only.
    auto end = statementEnd(first, ignored);
    if (end && *end >= line) return std::pair{first, *end};
  }
  // No loop in this file holds the line: a call whose loop is in the callee, when it is one statement.
  std::string text = trimmed(this->line(line));
  size_t comment = text.find("//");
  if (comment != std::string::npos) text = trimmed(text.substr(0, comment));
  if (text.ends_with(";") && std::count(text.begin(), text.end(), '(') == std::count(text.begin(), text.end(), ')') &&
      !startsWithKeyword(text, "if") && !startsWithKeyword(text, "return"))
    return std::pair{line, line};
  why = "no loop statement that holds this line was found, and the line is not one complete statement";
  return std::nullopt;
}

}  // namespace fenceline::fix
