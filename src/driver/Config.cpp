// The configuration file: the TOML-subset parser and the upward search (see
// Config.h). The parser reads the whole file with one cursor that knows its
// line and column, so every error points at the character that is wrong.
#include "driver/Config.h"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "checks/CheckTable.h"
#include "driver/CheckSelection.h"
#include "driver/DidYouMean.h"

namespace fenceline::driver {

namespace fs = std::filesystem;

namespace {

struct ConfigError {
  uint32_t line, column;
  std::string message;
};

// A value as written: a string or an array of strings, with where it started.
struct Value {
  bool isArray = false;
  std::optional<bool> boolean;  // true / false (bare words)
  std::string text;
  std::vector<std::string> items;
  uint32_t line = 0, column = 0;
};

class Cursor {
 public:
  explicit Cursor(const std::string& text) : text_(text) {}

  bool atEnd() const { return at_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[at_]; }
  uint32_t line() const { return line_; }
  uint32_t column() const { return column_; }

  char next() {
    char c = text_[at_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    return c;
  }

  [[noreturn]] void fail(std::string message) const { throw ConfigError{line_, column_, std::move(message)}; }

  void skipSpaces() {
    while (peek() == ' ' || peek() == '\t') next();
  }
  void skipComment() {
    if (peek() != '#') return;
    while (!atEnd() && peek() != '\n') next();
  }
  // Spaces, comments and line breaks (inside an array).
  void skipBlank() {
    for (;;) {
      skipSpaces();
      skipComment();
      if (peek() == '\r' || peek() == '\n') {
        next();
        continue;
      }
      return;
    }
  }
  // The rest of a line after a key-value pair or table header.
  void expectLineEnd() {
    skipSpaces();
    skipComment();
    if (peek() == '\r') next();
    if (atEnd()) return;
    if (peek() != '\n') fail(fmt::format("unexpected '{}' after the value (one key = value per line)", peek()));
    next();
  }

 private:
  const std::string& text_;
  size_t at_ = 0;
  uint32_t line_ = 1, column_ = 1;
};

bool isBareKeyChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

std::string readKey(Cursor& in) {
  std::string key;
  while (isBareKeyChar(in.peek())) key += in.next();
  if (key.empty()) {
    if (in.peek() == '"' || in.peek() == '\'') in.fail("quoted keys are not supported; write the key bare");
    in.fail(fmt::format("expected a key, found '{}'", in.peek()));
  }
  if (in.peek() == '.') in.fail("dotted keys are not supported; use a [table] header");
  return key;
}

char escaped(Cursor& in) {
  char c = in.peek();
  switch (c) {
    case '"': case '\\': in.next(); return c;
    case 'n': in.next(); return '\n';
    case 't': in.next(); return '\t';
    case 'r': in.next(); return '\r';
    default: in.fail(fmt::format("unsupported escape '\\{}' (supported: \\\" \\\\ \\n \\t \\r)", c));
  }
}

std::string readString(Cursor& in) {
  char quote = in.next();
  if (in.peek() == quote) {  // "" then maybe """ (multi-line strings are not in the subset)
    in.next();
    if (in.peek() == quote) in.fail("multi-line strings are not supported");
    return "";
  }
  std::string text;
  for (;;) {
    if (in.atEnd() || in.peek() == '\n') in.fail("unterminated string");
    char c = in.next();
    if (c == quote) return text;
    if (c == '\\' && quote == '"') c = escaped(in);
    text += c;
  }
}

Value readValue(Cursor& in) {
  Value value;
  value.line = in.line();
  value.column = in.column();
  if (in.peek() == '"' || in.peek() == '\'') {
    value.text = readString(in);
    return value;
  }
  if (in.peek() != '[') {
    std::string word;
    while (!in.atEnd() && in.peek() != '\n' && in.peek() != '\r' && in.peek() != ' ' && in.peek() != '\t' &&
           in.peek() != '#')
      word += in.next();
    if (word == "true" || word == "false") {
      value.boolean = word == "true";
      return value;
    }
    throw ConfigError{value.line, value.column,
                      fmt::format("expected a string (\"...\"), an array of strings ([\"...\"]) or true/false, "
                                  "found '{}'", word)};
  }
  value.isArray = true;
  in.next();
  for (;;) {
    in.skipBlank();
    if (in.peek() == ']') {
      in.next();
      return value;
    }
    if (in.peek() != '"' && in.peek() != '\'') {
      if (in.atEnd()) in.fail("unterminated array (missing ']')");
      in.fail(fmt::format("expected a string in the array, found '{}'", in.peek()));
    }
    value.items.push_back(readString(in));
    in.skipBlank();
    if (in.peek() == ',') {
      in.next();
    } else if (in.peek() != ']') {
      in.fail("expected ',' or ']' after an array item");
    }
  }
}

[[noreturn]] void failAt(const Value& value, std::string message) {
  throw ConfigError{value.line, value.column, std::move(message)};
}

const std::string& expectString(const Value& value, std::string_view key) {
  if (value.isArray) failAt(value, fmt::format("'{}' takes a string, not an array", key));
  if (value.boolean) failAt(value, fmt::format("'{}' takes a string, not {}", key, *value.boolean ? "true" : "false"));
  return value.text;
}

bool expectBoolean(const Value& value, std::string_view key) {
  if (!value.boolean) failAt(value, fmt::format("'{}' takes true or false", key));
  return *value.boolean;
}

void storeGlobs(std::optional<std::string>& field, const Value& value, std::string_view key) {
  std::string error;
  if (!validateCheckGlobs(expectString(value, key), error)) failAt(value, error);
  field = value.text;
}

// The top-level keys: name and how its value is stored.
struct KeyRule {
  std::string_view key;
  void (*store)(Config&, const Value&);
};

const KeyRule kKeys[] = {
    {"checks", [](Config& c, const Value& v) { storeGlobs(c.checks, v, "checks"); }},
    {"warnings-as-errors", [](Config& c, const Value& v) { storeGlobs(c.warningsAsErrors, v, "warnings-as-errors"); }},
    {"fail-on",
     [](Config& c, const Value& v) {
       const std::string& level = expectString(v, "fail-on");
       if (level != "error" && level != "warning" && level != "note" && level != "never")
         failAt(v, fmt::format("fail-on must be \"error\", \"warning\", \"note\" or \"never\", not \"{}\"", level));
       c.failOn = level;
     }},
    {"header-filter",
     [](Config& c, const Value& v) {
       const std::string& pattern = expectString(v, "header-filter");
       try {
         std::regex check(pattern);
       } catch (const std::regex_error& e) {
         failAt(v, fmt::format("header-filter is not a valid regular expression: {}", e.what()));
       }
       c.headerFilter = pattern;
     }},
    {"arch", [](Config& c, const Value& v) { c.arch = expectString(v, "arch"); }},
    // Also report strict-tier findings (report/Evidence.h), at note level.
    {"strict", [](Config& c, const Value& v) { c.strict = expectBoolean(v, "strict"); }},
    {"nvcc-flags",
     [](Config& c, const Value& v) {
       if (!v.isArray) failAt(v, "'nvcc-flags' takes an array of strings, e.g. [\"-DNDEBUG\", \"-Iinclude\"]");
       c.nvccFlags = v.items;
     }},
    {"help-uri", [](Config& c, const Value& v) { c.helpUri = expectString(v, "help-uri"); }},
    {"information-uri", [](Config& c, const Value& v) { c.informationUri = expectString(v, "information-uri"); }},
    // How --fix spells the fences it inserts (fix/Spelling.h).
    {"fix-spelling",
     [](Config& c, const Value& v) {
       const std::string& style = expectString(v, "fix-spelling");
       if (style != "auto" && style != "cutlass" && style != "libcu++" && style != "intrinsics" && style != "asm")
         failAt(v, fmt::format("fix-spelling must be \"auto\", \"cutlass\", \"libcu++\", \"intrinsics\" or "
                               "\"asm\", not \"{}\"", style));
       c.fixSpelling = style;
     }},
    {"fix-proxy-fence", [](Config& c, const Value& v) { c.fixProxyFence = expectString(v, "fix-proxy-fence"); }},
    {"fix-acq-rel-fence", [](Config& c, const Value& v) { c.fixAcqRelFence = expectString(v, "fix-acq-rel-fence"); }},
};

void storeSeverity(Config& config, const std::string& key, const Value& value) {
  if (!checks::findCheck(key)) {
    auto ids = checkIdList();
    failAt(value, fmt::format("unknown check '{}' in [severity]{}", key, didYouMean(key, ids)));
  }
  const std::string& level = expectString(value, key);
  auto severity = level == "error"     ? std::optional(report::Severity::Error)
                  : level == "warning" ? std::optional(report::Severity::Warning)
                  : level == "note"    ? std::optional(report::Severity::Note)
                                       : std::nullopt;
  if (!severity) failAt(value, fmt::format("severity must be \"error\", \"warning\" or \"note\", not \"{}\"", level));
  config.severity[key] = *severity;
}

void storeTopLevel(Config& config, const std::string& key, const Value& value, uint32_t line, uint32_t column) {
  for (const auto& rule : kKeys) {
    if (rule.key != key) continue;
    rule.store(config, value);
    return;
  }
  std::vector<std::string> known;
  for (const auto& rule : kKeys) known.emplace_back(rule.key);
  known.emplace_back("severity");
  throw ConfigError{line, column, fmt::format("unknown key '{}'{}", key, didYouMean(key, known))};
}

Config parse(const std::string& text) {
  Config config;
  Cursor in(text);
  std::string table;  // "" or "severity"
  std::set<std::string> seen;
  while (!in.atEnd()) {
    in.skipSpaces();
    if (in.peek() == '#' || in.peek() == '\n' || in.peek() == '\r' || in.atEnd()) {
      in.expectLineEnd();
      continue;
    }
    uint32_t line = in.line(), column = in.column();
    if (in.peek() == '[') {
      in.next();
      if (in.peek() == '[') in.fail("arrays of tables ([[...]]) are not supported");
      in.skipSpaces();
      std::string name = readKey(in);
      in.skipSpaces();
      if (in.peek() != ']') in.fail("expected ']' after the table name");
      in.next();
      if (name != "severity") throw ConfigError{line, column + 1, fmt::format("unknown table '[{}]' (the one table is [severity])", name)};
      if (!seen.insert("[" + name + "]").second) throw ConfigError{line, column, fmt::format("table [{}] defined twice", name)};
      table = name;
      in.expectLineEnd();
      continue;
    }
    std::string key = readKey(in);
    in.skipSpaces();
    if (in.peek() != '=') in.fail(fmt::format("expected '=' after the key '{}'", key));
    in.next();
    in.skipSpaces();
    Value value = readValue(in);
    std::string qualified = table.empty() ? key : table + "." + key;
    if (!seen.insert(qualified).second) throw ConfigError{line, column, fmt::format("duplicate key '{}'", qualified)};
    if (table.empty())
      storeTopLevel(config, key, value, line, column);
    else
      storeSeverity(config, key, value);
    in.expectLineEnd();
  }
  return config;
}

}  // namespace

std::optional<Config> parseConfig(const std::string& text, const fs::path& file, std::string& error) {
  try {
    Config config = parse(text);
    config.file = file;
    return config;
  } catch (const ConfigError& e) {
    error = fmt::format("{}:{}:{}: error: {}", file.string(), e.line, e.column, e.message);
    return std::nullopt;
  }
}

const Config* ConfigFinder::load(const fs::path& file, std::string& error) {
  if (auto found = loaded_.find(file); found != loaded_.end()) return found->second.get();
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    error = fmt::format("{}: error: cannot read the configuration file", file.string());
    return nullptr;
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto config = parseConfig(text.str(), file, error);
  if (!config) return nullptr;
  return loaded_.emplace(file, std::make_unique<Config>(std::move(*config))).first->second.get();
}

const Config* ConfigFinder::forInput(const fs::path& input, std::string& error) {
  if (disabled_) return nullptr;
  if (!explicitFile_.empty()) return load(explicitFile_, error);
  std::error_code ec;
  fs::path folder = fs::absolute(input, ec).lexically_normal();
  if (!fs::is_directory(folder, ec)) folder = folder.parent_path();
  std::vector<fs::path> visited;
  fs::path file;
  for (fs::path at = folder;; at = at.parent_path()) {
    if (auto known = fileOfFolder_.find(at); known != fileOfFolder_.end()) {
      file = known->second;
      break;
    }
    visited.push_back(at);
    if (fs::is_regular_file(at / kConfigFileName, ec)) {
      file = at / kConfigFileName;
      break;
    }
    // The search ends at the repository root (a folder holding `.git`): a
    // project's configuration lives inside it, and a stray file above it
    // (a home or temporary folder) must not change its checks.
    if (fs::exists(at / ".git", ec)) break;
    if (at == at.parent_path()) break;
  }
  for (const auto& at : visited) fileOfFolder_[at] = file;
  return file.empty() ? nullptr : load(file, error);
}

}  // namespace fenceline::driver
