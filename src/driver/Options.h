// What `fenceline check` was asked to do, as parsed from the command line.
#pragma once

#include <string>
#include <vector>

#include "model/Limits.h"

namespace fenceline::driver {

inline constexpr const char* kVersion = "0.1.0";
inline constexpr const char* kDefaultArch = "sm_90a";

struct CheckOptions {
  std::vector<std::string> inputs;      // .ptx, .cu, directories
  std::string format = "text";          // text | json | sarif
  std::string checks;                   // --checks globs ("" = all)
  std::string arch = kDefaultArch;      // --arch for .cu inputs
  bool archGiven = false;               // --arch on the command line (overrides compile_commands.json)
  std::string nvcc;                     // --nvcc ("" = PATH, then /usr/local/cuda/bin)
  std::vector<std::string> nvccFlags;   // --nvcc-flag, appended as given
  std::string buildDir;                 // -p: holds compile_commands.json
  unsigned jobs = 0;                    // -j (0 = all cores)
  std::string output;                   // -o ("" = stdout)
  std::string color = "auto";           // auto | always | never
  std::string sarifRoot;                // --sarif-root ("" = working directory)
  bool verify = false;                  // --verify
  bool verbose = false;                 // -v: print the nvcc command lines
  model::Limits limits;                 // --max-instructions, --max-registers, ... (docs/cli.md, Limits)
};

}  // namespace fenceline::driver
