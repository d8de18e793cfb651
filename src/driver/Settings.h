// What applies to one input: the command line's options with its
// configuration file (.fenceline.toml, see Config.h) merged in, and the
// policy applied to its findings. The command line overrides the file: its
// --checks globs are applied after the file's `checks`; --arch, --fail-on,
// --warnings-as-errors and --header-filter replace the file's values;
// --nvcc-flag flags follow the file's `nvcc-flags`. An architecture from
// compile_commands.json sits between the two: --arch beats it, it beats the
// file's `arch`.
#pragma once

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "checks/CheckTable.h"
#include "driver/Config.h"
#include "driver/Deduplicate.h"
#include "driver/Options.h"
#include "report/Diagnostic.h"

namespace fenceline::driver {

struct InputSettings {
  const Config* config = nullptr;  // null: no configuration file applies
  CheckOptions options;            // arch and nvcc flags merged
  std::vector<const checks::CheckInfo*> checks;
  std::map<std::string, report::Severity> severity;  // per-check override
  std::string warningsAsErrors;                     // globs ("" = none)
  std::optional<std::regex> headerFilter;
  bool strict = false;                              // report the strict tier too (at note level)
};

// Returns false and sets error on a bad glob or regular expression.
bool resolveSettings(const CheckOptions& cli, const Config* config, InputSettings& settings, std::string& error);

// The policy, in this order: --header-filter (keep only findings whose
// primary location's file path the regex matches, searched anywhere in the
// path as nvcc recorded it); the tier (a strict-tier finding is dropped
// unless `strict`, else reported as a note that names its undecided link;
// the keys of those dropped go to `strictHidden`, Deduplicate.h); per-check severity and
// --warnings-as-errors for the default tier (a warning of a matching check
// becomes an error).
std::vector<report::Diagnostic> applyPolicy(std::vector<report::Diagnostic> diagnostics,
                                            const InputSettings& settings,
                                            std::vector<FindingKeys>* strictHidden = nullptr);

// --fail-on: whether a finding of this severity makes the exit status 1.
// Levels: "error", "warning" (default), "note", "never".
bool failsRun(report::Severity severity, const std::string& failOn);

}  // namespace fenceline::driver
