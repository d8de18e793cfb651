// Merging the configuration file with the command line, and the findings
// policy (see Settings.h).
#include "driver/Settings.h"

#include <fmt/format.h>

#include "driver/CheckSelection.h"
#include "report/Frames.h"

namespace fenceline::driver {

namespace {

std::optional<std::regex> compileFilter(const std::string& pattern, std::string_view origin, std::string& error) {
  try {
    return std::regex(pattern);
  } catch (const std::regex_error& e) {
    error = fmt::format("error: {} '{}' is not a valid regular expression: {}", origin, pattern, e.what());
    return std::nullopt;
  }
}

}  // namespace

bool resolveSettings(const CheckOptions& cli, const Config* config, InputSettings& settings, std::string& error) {
  settings.config = config;
  settings.options = cli;
  std::vector<std::string> globLists;
  if (config) {
    if (config->checks) globLists.push_back(*config->checks);
    if (!cli.archGiven && config->arch) settings.options.arch = *config->arch;
    settings.options.nvccFlags = config->nvccFlags;
    settings.options.nvccFlags.insert(settings.options.nvccFlags.end(), cli.nvccFlags.begin(), cli.nvccFlags.end());
    settings.severity = config->severity;
    if (config->warningsAsErrors) settings.warningsAsErrors = *config->warningsAsErrors;
    if (config->strict) settings.strict = *config->strict;
    if (config->headerFilter) {
      settings.headerFilter = compileFilter(*config->headerFilter, "header-filter", error);
      if (!settings.headerFilter) return false;
    }
  }
  if (cli.strict) settings.strict = *cli.strict;
  globLists.push_back(cli.checks);
  if (!selectChecks(globLists, settings.checks, error)) {
    if (config && config->checks && error.find("--checks") != std::string::npos)
      error += fmt::format(" (the configuration {} sets checks = \"{}\")", config->file.string(), *config->checks);
    return false;
  }
  if (cli.warningsAsErrors) {
    if (!validateCheckGlobs(*cli.warningsAsErrors, error)) {
      error = "error: --warnings-as-errors: " + error;
      return false;
    }
    settings.warningsAsErrors = *cli.warningsAsErrors;
  }
  if (cli.headerFilter) {
    settings.headerFilter = compileFilter(*cli.headerFilter, "--header-filter", error);
    if (!settings.headerFilter) return false;
  }
  return true;
}

namespace {

// The note that says why a strict-tier finding is not a warning: its
// undecided link (at that link's location when it has one), or the dispute.
report::Note strictTierNote(const report::Diagnostic& diagnostic) {
  report::Note note;
  note.location = diagnostic.location;
  if (const report::EvidenceLink* link = diagnostic.undecidedLink()) {
    note.message = fmt::format("strict tier: the {} link is not decided ({}){}", report::toString(link->kind),
                               link->how, link->detail.empty() ? "" : ": " + link->detail);
    if (link->location) note.location = *link->location;
  } else {
    note.message = "strict tier: the rule is disputed: " + diagnostic.disputed;
  }
  return note;
}

}  // namespace

std::vector<report::Diagnostic> applyPolicy(std::vector<report::Diagnostic> diagnostics,
                                            const InputSettings& settings,
                                            std::vector<FindingKeys>* strictHidden) {
  std::vector<report::Diagnostic> kept;
  for (auto& diagnostic : diagnostics) {
    if (settings.headerFilter) {
      std::string file = report::primaryFrame(diagnostic.location).file;
      if (!std::regex_search(file, *settings.headerFilter)) continue;
    }
    if (diagnostic.tier() == report::Tier::Strict) {
      if (!settings.strict) {
        if (strictHidden) strictHidden->push_back(keysOf(diagnostic));
        continue;
      }
      diagnostic.severity = report::Severity::Note;
      diagnostic.notes.insert(diagnostic.notes.begin(), strictTierNote(diagnostic));
    } else {
      if (auto level = settings.severity.find(diagnostic.check); level != settings.severity.end())
        diagnostic.severity = level->second;
      if (diagnostic.severity == report::Severity::Warning && globsSelect(settings.warningsAsErrors, diagnostic.check))
        diagnostic.severity = report::Severity::Error;
    }
    kept.push_back(std::move(diagnostic));
  }
  return kept;
}

bool failsRun(report::Severity severity, const std::string& failOn) {
  if (failOn == "never") return false;
  if (failOn == "note") return true;
  if (failOn == "error") return severity == report::Severity::Error;
  return severity != report::Severity::Note;  // "warning"
}

}  // namespace fenceline::driver
