// Input collection (see Inputs.h).
#include "driver/Inputs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
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

// *.ptx and *.cu under dir, sorted, skipping hidden entries and not following
// symbolic links to folders. What cannot be read (a folder without
// permission, a .ptx that is a symlink loop) is skipped with a warning on
// stderr; only `dir` itself being unreadable is an error.
std::vector<fs::path> expandDirectory(const fs::path& dir, std::string& error) {
  std::vector<fs::path> found;
  std::vector<fs::path> pending{dir};
  while (!pending.empty()) {
    fs::path folder = std::move(pending.back());
    pending.pop_back();
    std::error_code code;
    fs::directory_iterator it(folder, code), end;
    if (code) {
      if (folder == dir) {
        error = fmt::format("{}: error: cannot read directory: {}", dir.string(), code.message());
        return found;
      }
      std::cerr << fmt::format("{}: warning: folder skipped: {}\n", folder.string(), code.message());
      continue;
    }
    for (; it != end; it.increment(code)) {
      const fs::path& path = it->path();
      if (path.filename().string().starts_with(".")) continue;
      std::error_code linkCode, statusCode;
      bool isLink = it->is_symlink(linkCode);
      fs::file_status status = it->status(statusCode);  // follows links
      if (!isLink && fs::is_directory(status)) {
        pending.push_back(path);
        continue;
      }
      if (!sourceKindOf(path) || (isLink && fs::is_directory(status))) continue;
      if (statusCode || !fs::is_regular_file(status)) {
        std::string why = statusCode ? statusCode.message() : std::string("not a regular file");
        std::cerr << fmt::format("{}: warning: skipped: {}\n", path.string(), why);
        continue;
      }
      found.push_back(path);
    }
    if (code) std::cerr << fmt::format("{}: warning: folder not read to the end: {}\n", folder.string(), code.message());
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
    for (const auto& warning : database->warnings) std::cerr << warning << "\n";
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
    // Missing, a symlink loop, no permission on a parent folder: say which.
    if (fs::file_status status = fs::status(path, code); code || !fs::exists(status)) {
      bool missing = !code || code == std::errc::no_such_file_or_directory;
      error = fmt::format("{}: error: {}", given, missing ? "no such file or directory" : code.message());
      return false;
    }
    auto kind = kindOf(path);
    if (!kind) {
      error = fmt::format(
          "{}: error: unsupported input (expected a .ptx or .cu file, a CUDA binary (.cubin, .fatbin, .o, .a, .so) or a "
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
