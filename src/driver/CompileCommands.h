// Reading a build's compile_commands.json (`-p BUILD_DIR`): which .cu files it
// compiles and with which flags. Only flags that change the device code nvcc
// generates are kept (include paths, macros, language standard, --expt-*,
// relocatable device code, the target architecture); optimization, warnings,
// host-compiler pass-through and output options are dropped, since fenceline
// asks nvcc for PTX only.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fenceline::driver {

struct CompileCommand {
  std::string file;                 // absolute path of the source
  std::vector<std::string> flags;   // device-codegen flags, paths made absolute
  std::vector<std::string> archs;   // virtual/real architectures named (compute_90a, sm_80, ...)
};

struct CompileDatabase {
  std::vector<CompileCommand> commands;  // in file order
  // Entries skipped, and why ("compile_commands.json: warning: entry 3 skipped: ...").
  std::vector<std::string> warnings;
  const CompileCommand* find(const std::string& absolutePath) const;
};

// Reads BUILD_DIR/compile_commands.json. On failure (unreadable, not a JSON
// array) returns nullopt and sets error; a malformed entry is skipped with a
// warning. Never throws.
std::optional<CompileDatabase> readCompileDatabase(const std::string& buildDir, std::string& error);

// The device-codegen subset of an nvcc command line (exposed for tests).
CompileCommand filterDeviceFlags(const std::vector<std::string>& arguments, const std::string& directory);

// Splits a shell command line into words (quotes and backslashes as in sh).
std::vector<std::string> splitCommandLine(const std::string& command);

}  // namespace fenceline::driver
