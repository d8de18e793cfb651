// compile_commands.json reading and flag filtering (see CompileCommands.h).
#include "driver/CompileCommands.h"

#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/SourceText.h"

namespace fenceline::driver {

namespace fs = std::filesystem;

namespace {

// How a kept option takes its value.
enum class Value { None, Joined, Path, Text };

struct KeptOption {
  std::string_view name;   // as spelled on the command line
  Value value;
  std::string_view canonical;  // the spelling passed to nvcc ("" = same)
};

// The options that change device code. A Value option accepts "-X v", "-Xv"
// (single-dash short forms) and "--long=v" / "--long v".
constexpr KeptOption kKept[] = {
    {"-I", Value::Path, ""},           {"--include-path", Value::Path, "-I"},
    {"-isystem", Value::Path, ""},     {"--system-include", Value::Path, "-isystem"},
    {"-include", Value::Path, ""},     {"--pre-include", Value::Path, "-include"},
    {"-D", Value::Text, ""},           {"--define-macro", Value::Text, "-D"},
    {"-U", Value::Text, ""},           {"--undefine-macro", Value::Text, "-U"},
    {"-std", Value::Text, ""},         {"--std", Value::Text, "-std"},
    {"-rdc", Value::Text, ""},         {"--relocatable-device-code", Value::Text, "-rdc"},
    {"--expt-relaxed-constexpr", Value::None, ""}, {"-expt-relaxed-constexpr", Value::None, "--expt-relaxed-constexpr"},
    {"--expt-extended-lambda", Value::None, ""},   {"-expt-extended-lambda", Value::None, "--expt-extended-lambda"},
    {"--extended-lambda", Value::None, ""},        {"-extended-lambda", Value::None, "--extended-lambda"},
};

// Architecture options: their values are collected, not passed through;
// the compiler driver picks one architecture for `nvcc -ptx`.
constexpr std::string_view kArchOptions[] = {"-arch", "--gpu-architecture", "-gencode", "--generate-code"};
// Options whose value is a separate word we must skip (never kept).
constexpr std::string_view kSkipWithValue[] = {"-o", "--output-file", "-x", "-ccbin", "--compiler-bindir",
                                               "-code", "--gpu-code", "-Xcompiler", "-Xptxas", "-Xlinker",
                                               "-MF", "-MT", "-MQ", "-odir", "--output-directory"};
constexpr std::string_view kOptionsFile[] = {"--options-file", "-optf"};

template <typename Range>
bool contains(const Range& range, std::string_view word) {
  for (const auto& item : range)
    if (item == word) return true;
  return false;
}

std::string absolute(const std::string& path, const std::string& directory) {
  if (path.empty() || fs::path(path).is_absolute() || directory.empty()) return path;
  return (fs::path(directory) / path).lexically_normal().string();
}

// "arch=compute_90a,code=[compute_90a,sm_90a]" -> compute_90a; "sm_80" -> sm_80.
void collectArch(std::string_view option, const std::string& value, std::vector<std::string>& archs) {
  if (option == "-gencode" || option == "--generate-code") {
    auto at = value.find("arch=");
    if (at == std::string::npos) return;
    auto end = value.find(',', at);
    archs.push_back(value.substr(at + 5, end == std::string::npos ? std::string::npos : end - at - 5));
    return;
  }
  std::stringstream list(value);  // -arch=sm_80,sm_90 is allowed
  for (std::string item; std::getline(list, item, ',');)
    if (!item.empty()) archs.push_back(item);
}

// Splits "--name=value" / "-Nvalue" forms. Returns true when `word` is `option`
// with a value attached, storing it in value.
bool attachedValue(std::string_view word, std::string_view option, std::string& value) {
  if (word.size() <= option.size() || word.substr(0, option.size()) != option) return false;
  std::string_view rest = word.substr(option.size());
  if (rest.front() == '=') {
    value = rest.substr(1);
    return true;
  }
  // Joined short forms: -I/path, -DNAME; long options need '='.
  if (option.size() == 2) {
    value = rest;
    return true;
  }
  return false;
}

void filterInto(const std::vector<std::string>& words, size_t first, const std::string& directory,
                CompileCommand& out, int depth);

void readOptionsFile(const std::string& path, const std::string& directory, CompileCommand& out, int depth) {
  if (depth > 4) return;
  std::string why;  // an unreadable options file: nvcc itself will say why
  if (auto text = report::readRegularFile(absolute(path, directory), size_t{1} << 24, why))
    filterInto(splitCommandLine(*text), 0, directory, out, depth + 1);
}

void filterInto(const std::vector<std::string>& words, size_t first, const std::string& directory,
                CompileCommand& out, int depth) {
  for (size_t i = first; i < words.size(); ++i) {
    const std::string& word = words[i];
    std::string value;
    bool handled = false;
    for (const auto& option : kKept) {
      std::string spelled(option.canonical.empty() ? option.name : option.canonical);
      if (option.value == Value::None) {
        if (word == option.name) {
          out.flags.push_back(spelled);
          handled = true;
        }
      } else if (word == option.name && i + 1 < words.size()) {
        value = words[++i];
        handled = true;
      } else if (attachedValue(word, option.name, value)) {
        handled = true;
      }
      if (!handled) continue;
      if (option.value == Value::Path) value = absolute(value, directory);
      if (option.value == Value::None) break;
      if (spelled == "-std" || spelled == "-rdc")
        out.flags.push_back(spelled + "=" + value);
      else if (spelled == "-I" || spelled == "-D" || spelled == "-U")
        out.flags.push_back(spelled + value);
      else {
        out.flags.push_back(spelled);
        out.flags.push_back(value);
      }
      break;
    }
    if (handled) continue;
    if (word == "-dc" || word == "--device-c") {
      out.flags.push_back("-rdc=true");
      continue;
    }
    for (std::string_view option : kArchOptions) {
      if (word == option && i + 1 < words.size()) {
        collectArch(option, words[++i], out.archs);
        handled = true;
      } else if (attachedValue(word, option, value)) {
        collectArch(option, value, out.archs);
        handled = true;
      }
      if (handled) break;
    }
    if (handled) continue;
    for (std::string_view option : kOptionsFile) {
      if (word == option && i + 1 < words.size()) {
        readOptionsFile(words[++i], directory, out, depth);
        handled = true;
      } else if (attachedValue(word, option, value)) {
        readOptionsFile(value, directory, out, depth);
        handled = true;
      }
      if (handled) break;
    }
    if (handled) continue;
    if (contains(kSkipWithValue, word)) ++i;  // drop the option and its value
  }
}

}  // namespace

std::vector<std::string> splitCommandLine(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  char quote = 0;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (quote == '\'') {
      if (c == '\'') quote = 0; else word += c;
    } else if (quote == '"') {
      if (c == '"') quote = 0;
      else if (c == '\\' && i + 1 < command.size() && std::string_view("\"\\$`").find(command[i + 1]) != std::string_view::npos)
        word += command[++i];
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      inWord = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      word += command[++i];
      inWord = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (inWord) words.push_back(std::move(word));
      word.clear();
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push_back(std::move(word));
  return words;
}

CompileCommand filterDeviceFlags(const std::vector<std::string>& arguments, const std::string& directory) {
  CompileCommand command;
  // arguments[0] is the compiler itself.
  filterInto(arguments, 1, directory, command, 0);
  return command;
}

const CompileCommand* CompileDatabase::find(const std::string& absolutePath) const {
  for (const auto& command : commands)
    if (command.file == absolutePath) return &command;
  return nullptr;
}

namespace {

// What is wrong with one database entry, or "" when it can be used.
std::string entryProblem(const nlohmann::json& entry) {
  if (!entry.is_object()) return "not an object";
  if (!entry.contains("file") || !entry["file"].is_string()) return "\"file\" is missing or not a string";
  if (entry.contains("directory") && !entry["directory"].is_string()) return "\"directory\" is not a string";
  if (entry.contains("arguments")) {
    if (!entry["arguments"].is_array()) return "\"arguments\" is not an array";
    for (const auto& word : entry["arguments"])
      if (!word.is_string()) return "\"arguments\" holds a value that is not a string";
  } else if (entry.contains("command") && !entry["command"].is_string()) {
    return "\"command\" is not a string";
  }
  return {};
}

}  // namespace

std::optional<CompileDatabase> readCompileDatabase(const std::string& buildDir, std::string& error) {
  std::error_code code;
  fs::path path = fs::path(buildDir) / "compile_commands.json";
  if (fs::path(buildDir).filename() == "compile_commands.json" && !fs::is_directory(buildDir, code)) path = buildDir;
  std::string why;
  std::optional<std::string> text = report::readRegularFile(path.string(), size_t{1} << 30, why);
  if (!text) {
    error = "cannot read '" + path.string() + "': " + why;
    return std::nullopt;
  }
  nlohmann::json document = nlohmann::json::parse(*text, nullptr, false);
  if (document.is_discarded() || !document.is_array()) {
    error = "'" + path.string() + "' is not a JSON compilation database (an array of commands)";
    return std::nullopt;
  }
  CompileDatabase database;
  size_t number = 0;
  for (const auto& entry : document) {
    ++number;
    if (std::string problem = entryProblem(entry); !problem.empty()) {
      database.warnings.push_back(fmt::format("{}: warning: entry {} skipped: {}", path.string(), number, problem));
      continue;
    }
    std::string directory = entry.value("directory", std::string());
    std::vector<std::string> arguments;
    if (entry.contains("arguments")) {
      for (const auto& word : entry["arguments"]) arguments.push_back(word.get<std::string>());
    } else if (entry.contains("command")) {
      arguments = splitCommandLine(entry["command"].get<std::string>());
    }
    CompileCommand command = filterDeviceFlags(arguments, directory);
    std::string file = absolute(entry["file"].get<std::string>(), directory);
    // A file that cannot be resolved (symlink loop, no permission) keeps its
    // lexical path: it still names the entry, and checking it reports why.
    fs::path canonical = fs::weakly_canonical(file, code);
    command.file = code ? fs::path(file).lexically_normal().string() : canonical.string();
    database.commands.push_back(std::move(command));
  }
  return database;
}

}  // namespace fenceline::driver
