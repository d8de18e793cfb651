// The planner's rewrites beyond one inserted line: see Rewrites.h.
#include "fix/Rewrites.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "fix/Spelling.h"
#include "report/Frames.h"

namespace fenceline::fix {

namespace {

using model::SourceFrame;

std::string trimmed(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

// A line's code without its trailing // comment, trimmed.
std::string codeOf(const std::string& line) { return trimmed(line.substr(0, line.find("//"))); }

// Skips a string or character literal starting at text[at] (the quote); returns the offset after it.
size_t skipLiteral(const std::string& text, size_t at) {
  const char quote = text[at];
  size_t i = at + 1;
  while (i < text.size() && text[i] != quote && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
  return std::min(i + 1, text.size());
}

// Skips a comment starting at text[at], if there is one; returns the offset after it (at: none).
size_t skipComment(const std::string& text, size_t at) {
  if (text.compare(at, 2, "//") == 0) return std::min(text.find('\n', at), text.size());
  if (text.compare(at, 2, "/*") == 0) {
    size_t end = text.find("*/", at + 2);
    return end == std::string::npos ? text.size() : end + 2;
  }
  return at;
}

// After an opening `open` at text[at]: the offset after its matching `close`, or npos.
size_t skipBalanced(const std::string& text, size_t at, char open, char close) {
  int depth = 0;
  for (size_t i = at; i < text.size();) {
    if (size_t after = skipComment(text, i); after != i) {
      i = after;
      continue;
    }
    const char c = text[i];
    if (c == '"' || c == '\'') {
      i = skipLiteral(text, i);
      continue;
    }
    if (c == open) ++depth;
    if (c == close && --depth == 0) return i + 1;
    ++i;
  }
  return std::string::npos;
}

// The lowest brace depth reached between two offsets, relative to the depth at `from`
// (negative: a block open at `from` is closed before `to`).
int lowestDepth(const std::string& text, size_t from, size_t to) {
  int depth = 0, lowest = 0;
  for (size_t i = from; i < to && i < text.size();) {
    if (size_t after = skipComment(text, i); after != i) {
      i = after;
      continue;
    }
    if (text[i] == '"' || text[i] == '\'') {
      i = skipLiteral(text, i);
      continue;
    }
    if (text[i] == '{') ++depth;
    if (text[i] == '}') lowest = std::min(lowest, --depth);
    ++i;
  }
  return lowest;
}

// The depth at `to` relative to `from`.
int depthChange(const std::string& text, size_t from, size_t to) {
  int depth = 0;
  for (size_t i = from; i < to && i < text.size();) {
    if (size_t after = skipComment(text, i); after != i) {
      i = after;
      continue;
    }
    if (text[i] == '"' || text[i] == '\'') {
      i = skipLiteral(text, i);
      continue;
    }
    depth += text[i] == '{' ? 1 : text[i] == '}' ? -1 : 0;
    ++i;
  }
  return depth;
}

// The function name of a frame's demangled name: `ns::wait_acquire_gpu(unsigned int const*)` ->
// `wait_acquire_gpu`; empty for templates, operators and members.
std::string functionName(const std::string& demangled) {
  const size_t paren = demangled.find('(');
  std::string name = trimmed(demangled.substr(0, paren));
  if (name.find('<') != std::string::npos || name.find("operator") != std::string::npos) return "";
  if (name.find("::") != std::string::npos) return "";
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return "";
  return name;
}

struct Definition {
  uint32_t first = 0;     // first line of the declaration (its template<>, qualifiers)
  uint32_t nameLine = 0;  // the line that names the function
  uint32_t last = 0;      // the line of the body's closing brace
  size_t begin = 0, end = 0;  // byte range [first line, after the closing brace's line)
};

// The definition of function `name` in `source` whose lines hold `containing` (0: any).
std::optional<Definition> findDefinition(const SourceLines& source, const std::string& name, uint32_t containing) {
  const std::string& text = source.text();
  const std::regex call("\\b" + name + "\\s*\\(");
  for (uint32_t l = 1; l <= source.lineCount(); ++l) {
    const std::string& line = source.line(l);
    std::smatch match;
    const std::string code = line.substr(0, line.find("//"));
    if (!std::regex_search(code, match, call)) continue;
    const size_t at = match.position(0);
    const std::string before = trimmed(code.substr(0, at));
    if (before.ends_with(".") || before.ends_with("->") || before.ends_with("::") || before.ends_with("=") ||
        before.ends_with("(") || before.ends_with(",") || before.ends_with("return"))
      continue;
    size_t open = text.find('(', source.offsetOfLine(l) + at);
    size_t afterParameters = skipBalanced(text, open, '(', ')');
    if (afterParameters == std::string::npos) continue;
    size_t i = afterParameters;
    // Trailing qualifiers (const, noexcept) before the body.
    while (i < text.size() && (std::isspace(static_cast<unsigned char>(text[i])) || std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_'))
      ++i;
    if (i >= text.size() || text[i] != '{') continue;
    size_t bodyEnd = skipBalanced(text, i, '{', '}');
    if (bodyEnd == std::string::npos) continue;
    Definition d;
    d.nameLine = l;
    d.last = source.lineColumnOf(bodyEnd - 1).first;
    // The declaration starts after the previous statement, block or preprocessor line.
    d.first = l;
    while (d.first > 1) {
      const std::string above = codeOf(source.line(d.first - 1));
      if (above.empty() || above.starts_with("#") || above.ends_with(";") || above.ends_with("}") ||
          above.ends_with("{") || above.starts_with("/*") || above.starts_with("*"))
        break;
      --d.first;
    }
    if (containing != 0 && (containing < d.first || containing > d.last)) continue;
    // The definition must end its line.
    if (!codeOf(text.substr(bodyEnd, source.offsetOfLine(d.last + 1) - bodyEnd)).empty()) continue;
    d.begin = source.offsetOfLine(d.first);
    d.end = source.offsetOfLine(d.last + 1);
    return d;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::pair<uint32_t, uint32_t>> functionLines(const SourceLines& source, const std::string& demangled,
                                                           uint32_t containing) {
  // The function's own name: the identifier before its parameter list, without a template's
  // arguments or a namespace or class.
  std::string head = demangled.substr(0, demangled.find('('));
  while (!head.empty() && head.back() == '>') {
    int depth = 0;
    size_t i = head.size();
    while (i > 0) {
      --i;
      if (head[i] == '>') ++depth;
      if (head[i] == '<' && --depth == 0) break;
    }
    head = trimmed(head.substr(0, i));
  }
  size_t start = head.size();
  while (start > 0 && (std::isalnum(static_cast<unsigned char>(head[start - 1])) || head[start - 1] == '_')) --start;
  const std::string name = head.substr(start);
  if (name.empty() || name == "operator") return std::nullopt;
  auto definition = findDefinition(source, name, containing);
  if (!definition) return std::nullopt;
  return std::pair{definition->first, definition->last};
}

namespace {

// A function name's words for each scope, and the name of the wider-scope twin.
std::string twinName(const std::string& name, const std::string& from, const std::string& to) {
  static const std::map<std::string, std::vector<std::string>> words = {
      {"cta", {"cta", "block"}}, {"cluster", {"cluster"}}, {"gpu", {"gpu", "device"}}, {"sys", {"sys", "system"}}};
  const auto& fromWords = words.at(from);
  const auto& toWords = words.at(to);
  for (size_t k = 0; k < fromWords.size(); ++k) {
    const std::regex word("(^|_)" + fromWords[k] + "(_|$)");
    std::smatch match;
    if (std::regex_search(name, match, word)) {
      const std::string& replacement = toWords[std::min(k, toWords.size() - 1)];
      return match.prefix().str() + match[1].str() + replacement + match[2].str() + match.suffix().str();
    }
  }
  return name + "_" + to;
}

std::string collapsedSpaces(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return trimmed(out);
}

// The scope widened on one line of [first, last]: the one place any line spells `from`.
std::optional<std::pair<uint32_t, ScopeReplacement>> widenInLines(const SourceLines& source, uint32_t first,
                                                                  uint32_t last, const std::string& from,
                                                                  const std::string& to, std::string& why) {
  std::optional<std::pair<uint32_t, ScopeReplacement>> found;
  int lines = 0;
  for (uint32_t line = first; line <= last; ++line) {
    std::string lineWhy;
    if (auto replacement = widenScopeOnLine(source.line(line), from, to, lineWhy)) {
      found = std::pair{line, *replacement};
      ++lines;
    } else if (lineWhy.find("places") != std::string::npos) {
      why = lineWhy;
      return std::nullopt;
    }
  }
  if (lines == 1) return found;
  why = lines == 0 ? fmt::format("the {} scope is not spelled in lines {}-{}", from, first, last)
                   : "the scope is spelled on more than one line";
  return std::nullopt;
}

}  // namespace

std::string widenThroughHelper(const report::FixRequest& request, const SourceFrame& helper, const SourceFrame& call,
                               const SourceLines& helperSource, SourceCache& sources, const FixSettings& settings,
                               std::vector<report::Edit>& edits) {
  const std::string shared = fmt::format("the scope is spelled in the helper {} (line {}), which other callers share",
                                         helper.function, helper.line);
  const std::string name = functionName(helper.function);
  if (name.empty()) return shared + "; it is a template, member or operator: widen it at this call site by hand";
  auto definition = findDefinition(helperSource, name, helper.line);
  if (!definition) return shared + "; its definition was not found";
  if (auto macro = helperSource.macroAt(helper.line))
    return fmt::format("the fix point is inside the expansion of the macro {} (line {})", *macro, helper.line);
  std::string why;
  auto statement = helperSource.statementAt(helper.line, why);
  if (!statement) return shared + "; " + why;
  auto widened = widenInLines(helperSource, statement->first, statement->second, request.fromScope, request.scope, why);
  if (!widened) return shared + "; " + why;
  const std::string twin = twinName(name, request.fromScope, request.scope);

  // The call site: the helper named once on its line.
  const std::string callFile = canonicalPath(call.file);
  if (std::string problem = ownershipProblem(callFile, settings); !problem.empty()) return problem;
  const SourceLines* callSource = sources.get(callFile, why);
  if (!callSource) return why;
  if (call.line == 0 || call.line > callSource->lineCount())
    return fmt::format("line {} is not in {} (the file changed after it was compiled?)", call.line, callFile);
  if (auto macro = callSource->macroAt(call.line))
    return fmt::format("the call of {} is inside the expansion of the macro {} (line {})", name, *macro, call.line);
  const std::string& callLine = callSource->line(call.line);
  const std::regex callOf("\\b" + name + "\\s*\\(");
  std::vector<size_t> calls;
  for (auto it = std::sregex_iterator(callLine.begin(), callLine.end(), callOf); it != std::sregex_iterator(); ++it)
    calls.push_back(it->position(0));
  if (calls.size() != 1)
    return fmt::format("{}; line {} calls it {} times", shared, call.line, calls.size());

  // The twin: the file's own, when it is the helper at the wider scope; else a copy added after the helper.
  const std::string& text = helperSource.text();
  std::string copy = text.substr(definition->begin, definition->end - definition->begin);
  {
    const size_t lineStart = helperSource.offsetOfLine(widened->first) - definition->begin;
    copy.replace(lineStart + widened->second.column, widened->second.length, widened->second.text);
    const size_t nameLineStart = helperSource.offsetOfLine(definition->nameLine) - definition->begin;
    std::smatch match;
    std::string nameLine = copy.substr(nameLineStart, copy.find('\n', nameLineStart) - nameLineStart);
    if (!std::regex_search(nameLine, match, callOf)) return shared + "; its name was not found on its first line";
    copy.replace(nameLineStart + match.position(0), name.size(), twin);
  }
  std::vector<report::Edit> found;
  if (auto existing = findDefinition(helperSource, twin, 0)) {
    const std::string theirs = text.substr(existing->begin, existing->end - existing->begin);
    if (collapsedSpaces(theirs) != collapsedSpaces(copy))
      return fmt::format("{}; the file defines {} (line {}), but not as {} at {} scope", shared, twin,
                         existing->nameLine, name, request.scope);
    if (callFile == canonicalPath(helper.file) && existing->first > call.line)
      return fmt::format("{}; its twin {} is defined below the call (line {})", shared, twin, existing->nameLine);
  } else {
    if (callFile == canonicalPath(helper.file) && definition->first > call.line)
      return shared + "; it is defined below the call";
    found.push_back(makeEdit(canonicalPath(helper.file), helperSource, definition->end, 0, copy));
    found.back().copiedLine = definition->first;
    found.back().copiedOffset = definition->begin;
    found.back().copiedLength = definition->end - definition->begin;
  }
  found.push_back(makeEdit(callFile, *callSource, callSource->offsetOfLine(call.line) + calls.front(), name.size(),
                           twin));
  edits.insert(edits.end(), found.begin(), found.end());
  return "";
}

std::string widenThroughDeclaration(const report::FixRequest& request, const SourceFrame& at, uint32_t first,
                                    const SourceLines& source, std::vector<report::Edit>& edits) {
  // The receiver of a libcu++ atomic's member call on the statement.
  static const std::regex member(
      R"(\b([A-Za-z_]\w*)\s*(?:\.|->)\s*(?:load|store|exchange|compare_exchange_weak|compare_exchange_strong|fetch_add|fetch_sub|fetch_and|fetch_or|fetch_xor|fetch_min|fetch_max|wait|notify_one|notify_all)\s*\()");
  std::set<std::string> receivers;
  for (uint32_t line = first; line <= at.line; ++line) {
    const std::string code = codeOf(source.line(line));
    for (auto it = std::sregex_iterator(code.begin(), code.end(), member); it != std::sregex_iterator(); ++it)
      receivers.insert((*it)[1].str());
  }
  const std::string notSpelled = fmt::format(
      "the {} scope is not spelled on this line (it is chosen where the operation is defined, or by a default)",
      request.fromScope);
  if (receivers.size() != 1) return notSpelled;
  const std::string receiver = *receivers.begin();
  // Its declaration: the nearest line above that declares it with a thread scope, in a block that
  // is still open at the statement.
  const std::regex declares("\\bthread_scope_\\w+\\b[^;]*\\b" + receiver + "\\s*[({=;]");
  constexpr uint32_t kLinesAbove = 60;
  for (uint32_t line = first; line-- > 1 && line + kLinesAbove >= first;) {
    const std::string code = codeOf(source.line(line));
    if (!std::regex_search(code, declares)) continue;
    if (lowestDepth(source.text(), source.offsetOfLine(line + 1), source.offsetOfLine(first)) < 0) continue;
    std::string why;
    auto replacement = widenScopeOnLine(source.line(line), request.fromScope, request.scope, why);
    if (!replacement)
      return fmt::format("the scope of {} is chosen where it is declared (line {}): {}", receiver, line, why);
    edits.push_back(makeEdit(at.file, source, source.offsetOfLine(line) + replacement->column, replacement->length,
                             replacement->text));
    return "";
  }
  return notSpelled;
}

namespace {

// Splits `a, b` at its top-level comma.
std::optional<std::pair<std::string, std::string>> splitArguments(const std::string& text) {
  int depth = 0;
  std::optional<size_t> comma;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == '[' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '>') --depth;
    if (c == ',' && depth == 0) {
      if (comma) return std::nullopt;
      comma = i;
    }
  }
  if (!comma) return std::nullopt;
  return std::pair{trimmed(text.substr(0, *comma)), trimmed(text.substr(*comma + 1))};
}

// `E < T` or `E != T` at the top level of a condition: E and T.
std::optional<std::pair<std::string, std::string>> splitComparison(const std::string& condition) {
  int depth = 0;
  std::optional<std::pair<size_t, size_t>> op;  // offset, length
  for (size_t i = 0; i < condition.size(); ++i) {
    const char c = condition[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (depth != 0) continue;
    if (c == '&' || c == '|' || c == '?') return std::nullopt;  // not a single comparison
    if (c == '<' && i + 1 < condition.size() && condition[i + 1] != '<' && condition[i + 1] != '=' &&
        (i == 0 || condition[i - 1] != '<')) {
      // `*(volatile unsigned*)p` has its '<'-free cast inside parentheses; a template argument list would not.
      if (op) return std::nullopt;
      op = std::pair{i, size_t{1}};
    }
    if (c == '!' && i + 1 < condition.size() && condition[i + 1] == '=') {
      if (op) return std::nullopt;
      op = std::pair{i, size_t{2}};
    }
  }
  if (!op) return std::nullopt;
  return std::pair{trimmed(condition.substr(0, op->first)), trimmed(condition.substr(op->first + op->second))};
}

bool isGridThreshold(const std::string& t) { return t == "gridDim.x"; }
bool isTopBitThreshold(const std::string& t) {
  return t == "0x80000000u" || t == "0x80000000U" || t == "0x80000000" || t == "2147483648u" || t == "2147483648U";
}
bool isOne(const std::string& t) { return t == "1" || t == "1u" || t == "1U"; }

bool containsWord(const std::string& text, const std::string& word) {
  return std::regex_search(text, std::regex("(^|[^\\w])" + std::regex_replace(word, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + "($|[^\\w])"));
}

}  // namespace

std::string planPhaseBitBarrier(const report::FixRequest& request, SourceCache& sources, const FixSettings& settings,
                                std::vector<report::Edit>& edits) {
  if (request.barrierUses.empty()) return request.reason;
  // Every use's arrival and poll, as lines of one file.
  struct UseLines {
    uint32_t arrival = 0, poll = 0;
  };
  std::vector<UseLines> uses;
  std::string file;
  for (const auto& [arrival, poll] : request.barrierUses) {
    if (arrival.frames.empty() || poll.frames.empty())
      return "the PTX has no source line for the barrier (compile with -lineinfo)";
    const SourceFrame a = report::primaryFrame(arrival), p = report::primaryFrame(poll);
    if (canonicalPath(a.file) != canonicalPath(p.file) || (!file.empty() && canonicalPath(a.file) != file))
      return "the barrier's uses are in more than one file";
    file = canonicalPath(a.file);
    UseLines use{a.line, p.line};
    if (std::none_of(uses.begin(), uses.end(),
                     [&](const UseLines& u) { return u.arrival == use.arrival && u.poll == use.poll; }))
      uses.push_back(use);
  }
  std::sort(uses.begin(), uses.end(), [](const UseLines& x, const UseLines& y) { return x.arrival < y.arrival; });
  if (std::string problem = ownershipProblem(file, settings); !problem.empty()) return problem;
  std::string why;
  const SourceLines* source = sources.get(file, why);
  if (!source) return why;
  if (auto generated = machineGenerated(file, *source))
    return fmt::format("{} is {}: fix the generator's input, not its output", file, *generated);
  const std::string& text = source->text();

  // The name of the arrival's old value: one the file does not use.
  std::string base = "arrival";
  for (const char* candidate : {"arrival", "barrier_arrival", "phase_arrival"}) {
    base = candidate;
    if (!containsWord(text, base)) break;
  }
  if (containsWord(text, base)) return "no free name for the arrival's value was found";

  const std::string shape =
      "the barrier is not of the recognized shape (`atomicAdd(counter, 1);` then `while (<load of counter> < "
      "gridDim.x) {}`, or the increment and `< 0x80000000u` of the sign-test form)";
  std::vector<report::Edit> found;
  uint32_t previousArrival = 0;
  int sameBlockIndex = 0;
  for (const UseLines& use : uses) {
    for (uint32_t line : {use.arrival, use.poll}) {
      if (line == 0 || line > source->lineCount())
        return fmt::format("line {} is not in {} (the file changed after it was compiled?)", line, file);
      if (auto macro = source->macroAt(line))
        return fmt::format("the barrier is inside the expansion of the macro {} (line {}); {}", *macro, line, shape);
    }
    // The arrival: `atomicAdd(C, I);` alone on its line.
    auto statement = source->statementAt(use.arrival, why);
    if (!statement || statement->first != statement->second) return shape;
    const std::string& arrivalLine = source->line(use.arrival);
    const std::string arrivalCode = codeOf(arrivalLine);
    static const std::regex add(R"(^atomicAdd\s*\((.*)\)\s*;$)");
    std::smatch addMatch;
    if (!std::regex_match(arrivalCode, addMatch, add)) return shape;
    auto arguments = splitArguments(addMatch[1].str());
    if (!arguments) return shape;
    const auto& [counter, increment] = *arguments;
    // The poll: the loop `while (E < T)` that holds it.
    auto loop = source->loopStatementAt(use.poll, why);
    if (!loop || loop->first <= use.arrival) return shape;
    const std::string& pollLine = source->line(loop->first);
    const size_t whileAt = pollLine.find("while");
    if (whileAt == std::string::npos || trimmed(pollLine).rfind("while", 0) != 0) return shape;
    const size_t open = pollLine.find('(', whileAt);
    if (open == std::string::npos) return shape;
    const size_t lineStart = source->offsetOfLine(loop->first);
    const size_t close = skipBalanced(text, lineStart + open, '(', ')');
    if (close == std::string::npos || source->lineColumnOf(close - 1).first != loop->first) return shape;
    const std::string condition = text.substr(lineStart + open + 1, close - 1 - (lineStart + open + 1));
    auto comparison = splitComparison(condition);
    if (!comparison) return shape;
    const auto& [polled, threshold] = *comparison;
    if (!containsWord(polled, counter)) return shape;
    std::string newIncrement;
    if (isGridThreshold(threshold) && isOne(increment))
      newIncrement = "blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u";
    else if (isTopBitThreshold(threshold))
      newIncrement = increment;
    else
      return shape;
    // The arrival's value must be in scope at the poll.
    if (lowestDepth(text, source->offsetOfLine(use.arrival + 1), lineStart) < 0) return shape;
    // Two uses in one block get two names.
    if (previousArrival != 0 && depthChange(text, source->offsetOfLine(previousArrival), source->offsetOfLine(use.arrival)) >= 0 &&
        lowestDepth(text, source->offsetOfLine(previousArrival), source->offsetOfLine(use.arrival)) >= 0)
      ++sameBlockIndex;
    else
      sameBlockIndex = 0;
    previousArrival = use.arrival;
    const std::string name = sameBlockIndex == 0 ? base : fmt::format("{}{}", base, sameBlockIndex + 1);
    const size_t codeStart = arrivalLine.find_first_not_of(" \t");
    found.push_back(makeEdit(file, *source, source->offsetOfLine(use.arrival) + codeStart, arrivalCode.size(),
                             fmt::format("unsigned {} = atomicAdd({}, {});", name, counter, newIncrement)));
    found.push_back(makeEdit(file, *source, lineStart + open + 1, condition.size(),
                             fmt::format("(({} ^ {}) & 0x80000000u) == 0", name, polled)));
  }
  edits.insert(edits.end(), found.begin(), found.end());
  return "";
}

}  // namespace fenceline::fix
