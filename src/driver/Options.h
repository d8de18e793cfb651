// What `fenceline check` was asked to do, as parsed from the command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/Limits.h"

namespace fenceline::driver {

inline constexpr const char* kVersion = "0.1.0";
inline constexpr const char* kDefaultArch = "sm_90a";

// SARIF's tool.driver.informationUri and the rules' helpUri template ("{id}"
// is the check id), set at build time (CMake FENCELINE_PROJECT_URL and
// FENCELINE_HELP_URI); the configuration keys information-uri and help-uri
// override them. Empty: omitted.
#ifndef FENCELINE_PROJECT_URL
#define FENCELINE_PROJECT_URL ""
#endif
#ifndef FENCELINE_HELP_URI
#define FENCELINE_HELP_URI ""
#endif

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
  std::string sarifRoot;                // --sarif-root ("" = git root of the working directory, else it)
  bool verify = false;                  // --verify
  bool verbose = false;                 // -v: print the nvcc command lines
  // Inputs and output (driver/Inputs.h, driver/UserCode.h, driver/Binaries.h).
  std::string flagsFile;                         // --flags-file: nvcc flags of a JIT cache's .cu files
  std::vector<std::string> systemHeaderPrefixes; // --system-header-prefix: library code, not the user's
  std::string cuobjdump;                         // --cuobjdump ("" = PATH, next to nvcc, /usr/local/cuda/bin)
  bool showPtx = false;                          // --show-ptx: the PTX line under each location
  bool allTargets = false;                       // --all-targets: a binary's PTX of every architecture
  // Configuration and policy (see Config.h, Settings.h); unset = the config file's value.
  std::string configFile;               // --config FILE ("" = found upward from each input)
  bool noConfig = false;                // --no-config
  std::optional<std::string> warningsAsErrors;  // --warnings-as-errors GLOBS
  std::optional<std::string> failOn;            // --fail-on error|warning|note|never
  std::optional<std::string> headerFilter;      // --header-filter REGEX
  std::optional<bool> strict;                   // --strict / --no-strict: the strict tier too (report/Evidence.h)
  // Baselines (see Baseline.h).
  std::string baseline;                 // --baseline FILE ("" = none)
  std::string writeBaseline;            // --write-baseline FILE
  // Machine fixes (fix/Planner.h, fix/Apply.h).
  bool fix = false;                     // --fix: apply the edits in place
  bool fixDryRun = false;               // --fix-dry-run: print them as a unified diff
  std::string exportFixes;              // --export-fixes FILE: clang-apply-replacements YAML
  std::string fixStyle = "consumer";    // --fix-style consumer|producer (proxy-war's placement)
  bool fixHeaders = false;              // --fix-headers: also edit headers outside the source tree
  model::Limits limits;                 // --max-instructions, --max-registers, ... (docs/cli.md, Limits)
};

}  // namespace fenceline::driver
