// Input collection (see Inputs.h).
#include "driver/Inputs.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "driver/CompileCommands.h"

namespace fenceline::driver {

namespace fs = std::filesystem;

namespace {

std::optional<Input::Kind> kindOf(const fs::path& path) {
  if (path.extension() == ".ptx") return Input::Kind::Ptx;
  if (path.extension() == ".cu") return Input::Kind::Cuda;
  return std::nullopt;
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
    if (!hidden && it->is_regular_file(code) && kindOf(path)) found.push_back(path);
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
      for (const auto& found : expandDirectory(path, dirError)) inputs.push_back({found.string(), *kindOf(found), {}, {}});
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
      error = fmt::format("{}: error: unsupported input (expected a .ptx file, a .cu file or a directory)", given);
      return false;
    }
    inputs.push_back({given, *kind, {}, {}});
  }

  // With -p and no explicit inputs, check every .cu file the build compiles.
  if (database && options.inputs.empty()) {
    for (const auto& command : database->commands)
      if (fs::path(command.file).extension() == ".cu") inputs.push_back({command.file, Input::Kind::Cuda, {}, {}});
  }
  for (auto& input : inputs) attachFlags(input, database ? &*database : nullptr);

  if (inputs.empty()) {
    error = options.inputs.empty() ? "error: no inputs (give .ptx/.cu files, directories, or -p BUILD_DIR)"
                                   : "error: no .ptx or .cu files found in the given inputs";
    return false;
  }
  return true;
}

}  // namespace fenceline::driver
