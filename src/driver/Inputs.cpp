// Input collection (see Inputs.h).
#include "driver/Inputs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "driver/Binaries.h"
#include "driver/CompileCommands.h"
#include "driver/UserCode.h"

namespace fenceline::driver {

namespace fs = std::filesystem;

namespace {

// What a file found in a directory is: .ptx or .cu, else nothing.
std::optional<Input::Kind> sourceKindOf(const fs::path& path) {
  if (path.extension() == ".ptx") return tritonKernelName(path.string()).empty() ? Input::Kind::Ptx : Input::Kind::TritonKernel;
  if (path.extension() == ".cu") return Input::Kind::Cuda;
  return std::nullopt;
}

// What a file named on the command line is: a source kind, or a binary.
std::optional<Input::Kind> kindOf(const fs::path& path) {
  if (auto kind = sourceKindOf(path)) return kind;
  if (isBinaryName(path.string())) return Input::Kind::Binary;
  return std::nullopt;
}

Input makeInput(const fs::path& path, Input::Kind kind, const std::string& root) {
  Input input;
  input.path = path.string();
  input.kind = kind;
  input.root = root.empty() ? projectRootOf(input.path) : root;
  if (kind == Input::Kind::TritonKernel) input.kernelName = tritonKernelName(input.path);
  return input;
}

// --flags-file: the flags a JIT passed to nvcc, as shell words (lines
// starting with '#' are comments); only the device-code ones are kept, with
// relative paths resolved against the file's folder.
bool readFlagsFile(const std::string& path, CompileCommand& flags, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = fmt::format("{}: error: cannot read flags file", path);
    return false;
  }
  std::vector<std::string> words{"nvcc"};
  for (std::string line; std::getline(in, line);) {
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    auto split = splitCommandLine(line);
    words.insert(words.end(), split.begin(), split.end());
  }
  std::error_code code;
  flags = filterDeviceFlags(words, fs::absolute(path, code).parent_path().string());
  return true;
}

// *.ptx and *.cu under dir, sorted, skipping hidden folders.
std::vector<fs::path> expandDirectory(const fs::path& dir, std::string& error) {
  std::vector<fs::path> found;
  std::error_code code;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, code), end;
  if (code) {
    error = fmt::format("{}: error: cannot read directory: {}", dir.string(), code.message());
    return found;
  }
  for (; it != end; it.increment(code)) {
    if (code) {
      error = fmt::format("{}: error: cannot read directory: {}", dir.string(), code.message());
      return found;
    }
    const fs::path& path = it->path();
    bool hidden = path.filename().string().starts_with(".");
    if (it->is_directory(code)) {
      if (hidden) it.disable_recursion_pending();
      continue;
    }
    if (!hidden && it->is_regular_file(code) && sourceKindOf(path)) found.push_back(path);
  }
  std::sort(found.begin(), found.end());
  return found;
}

void attachFlags(Input& input, const CompileDatabase* database) {
  if (!database || input.kind != Input::Kind::Cuda) return;
  std::error_code error;
  std::string key = fs::weakly_canonical(input.path, error).string();
  if (const CompileCommand* command = database->find(key)) {
    input.flags = command->flags;
    input.archs = command->archs;
  }
}

}  // namespace

bool collectInputs(const CheckOptions& options, std::vector<Input>& inputs, std::string& error) {
  std::optional<CompileDatabase> database;
  if (!options.buildDir.empty()) {
    std::string why;
    database = readCompileDatabase(options.buildDir, why);
    if (!database) {
      error = "error: " + why;
      return false;
    }
  }

  for (const auto& given : options.inputs) {
    fs::path path(given);
    std::error_code code;
    if (fs::is_directory(path, code)) {
      std::string dirError;
      std::string root = projectRootOf((path / "-").string());  // the project around the folder, or the folder
      for (const auto& found : expandDirectory(path, dirError)) inputs.push_back(makeInput(found, *sourceKindOf(found), root));
      if (!dirError.empty()) {
        error = dirError;
        return false;
      }
      continue;
    }
    if (!fs::exists(path, code)) {
      error = fmt::format("{}: error: no such file or directory", given);
      return false;
    }
    auto kind = kindOf(path);
    if (!kind) {
      error = fmt::format(
          "{}: error: unsupported input (expected a .ptx or .cu file, a CUDA binary (.cubin, .fatbin, .o, .so) or a "
          "directory)",
          given);
      return false;
    }
    inputs.push_back(makeInput(path, *kind, ""));
  }

  // With -p and no explicit inputs, check every .cu file the build compiles.
  if (database && options.inputs.empty()) {
    for (const auto& command : database->commands)
      if (fs::path(command.file).extension() == ".cu") inputs.push_back(makeInput(command.file, Input::Kind::Cuda, ""));
  }
  for (auto& input : inputs) attachFlags(input, database ? &*database : nullptr);

  // --flags-file: for the .cu files the database does not know (a JIT cache).
  if (!options.flagsFile.empty()) {
    CompileCommand flags;
    if (!readFlagsFile(options.flagsFile, flags, error)) return false;
    for (auto& input : inputs)
      if (input.kind == Input::Kind::Cuda && input.flags.empty()) {
        input.flags = flags.flags;
        input.archs = flags.archs;
      }
  }

  if (inputs.empty()) {
    error = options.inputs.empty() ? "error: no inputs (give .ptx/.cu files, directories, or -p BUILD_DIR)"
                                   : "error: no .ptx or .cu files found in the given inputs";
    return false;
  }
  return true;
}

std::string tritonKernelName(const std::string& ptxPath) {
  fs::path metadata = fs::path(ptxPath).replace_extension(".json");
  std::ifstream in(metadata);
  if (!in) return {};
  auto json = nlohmann::json::parse(in, nullptr, false);
  if (!json.is_object() || !json.contains("triton_version")) return {};
  auto name = json.find("name");
  return name != json.end() && name->is_string() ? name->get<std::string>() : std::string();
}

}  // namespace fenceline::driver
