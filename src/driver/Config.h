// The per-repository configuration file, `.fenceline.toml`, found upward from
// each input (the input's folder, then its parents, up to the filesystem
// root; the nearest file wins, files are not merged). It is read by a small
// strict parser for a documented subset of TOML (docs/cli.md): comments,
// `key = value` with bare keys, basic and literal strings, true and false, arrays of strings
// (which may span lines), and the one table `[severity]`. Anything else
// (an unknown key, a duplicate key, a value of the wrong type, other TOML
// syntax) is an error at file:line:column, so a typo never silently does
// nothing.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "report/Diagnostic.h"

namespace fenceline::driver {

inline constexpr const char* kConfigFileName = ".fenceline.toml";

struct Config {
  std::filesystem::path file;                 // where it was read from
  std::optional<std::string> checks;          // checks = "GLOBS" (applied before --checks)
  std::optional<std::string> warningsAsErrors;  // warnings-as-errors = "GLOBS"
  std::optional<std::string> failOn;          // fail-on = "error" | "warning" | "note" | "never"
  std::optional<std::string> headerFilter;    // header-filter = "REGEX"
  std::optional<std::string> arch;            // arch = "sm_90a"
  std::optional<bool> strict;                 // strict = true: also the strict tier (report/Evidence.h)
  std::vector<std::string> nvccFlags;         // nvcc-flags = ["-I...", ...]
  std::optional<std::string> helpUri;         // help-uri = "https://.../{id}.md" (SARIF)
  std::optional<std::string> informationUri;  // information-uri = "https://..." (SARIF)
  std::optional<std::string> fixSpelling;     // fix-spelling = "auto" | "cutlass" | "libcu++" | "intrinsics" | "asm"
  std::optional<std::string> fixProxyFence;   // fix-proxy-fence = "my_fence_proxy_async();"
  std::optional<std::string> fixAcqRelFence;  // fix-acq-rel-fence = "my_fence({scope});"
  std::map<std::string, report::Severity> severity;  // [severity] check-id = "error"
};

// Parses the text of a configuration file. On an error returns nullopt and
// sets error to "FILE:LINE:COL: error: ...".
std::optional<Config> parseConfig(const std::string& text, const std::filesystem::path& file, std::string& error);

// Finds and parses the configuration of each input, once per folder.
class ConfigFinder {
 public:
  // explicitFile: --config FILE (used for every input); disabled: --no-config.
  ConfigFinder(std::string explicitFile, bool disabled) : explicitFile_(std::move(explicitFile)), disabled_(disabled) {}

  // The configuration that applies to `input` (a file or folder), or null when
  // none is found. On a parse or read error returns null and sets error.
  const Config* forInput(const std::filesystem::path& input, std::string& error);

 private:
  const Config* load(const std::filesystem::path& file, std::string& error);

  std::string explicitFile_;
  bool disabled_;
  std::map<std::filesystem::path, std::filesystem::path> fileOfFolder_;  // folder -> config file ("" = none)
  std::map<std::filesystem::path, std::unique_ptr<Config>> loaded_;
};

}  // namespace fenceline::driver
