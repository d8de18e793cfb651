// The SARIF 2.1.0 renderer, shaped for GitHub code scanning: one run, the
// check table as `rules`, one result per diagnostic with its primary location
// (relative to the source root when the file lies under it), notes as
// `relatedLocations`, the inline chain as a code flow, and the finding's
// fingerprint (report/Fingerprint.h; computed here when the driver did not)
// as partialFingerprints, so it survives unrelated edits.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "report/Diagnostic.h"
#include "report/SourceText.h"
#include "report/Stats.h"

namespace fenceline::report {

struct SarifRule {
  std::string id;
  std::string shortDescription;  // the table's one-line summary
  std::string fullDescription;   // first paragraph of the doc page, or the summary
  std::string helpMarkdown;      // the doc page, when found
  std::string helpUri;           // empty: from SarifOptions::helpUriTemplate, or omitted
  Severity level = Severity::Warning;
  std::string precision = "medium";  // properties.precision: very-high | high | medium | low
  std::vector<std::string> tags;     // properties.tags
};

struct SarifOptions {
  std::string toolVersion;
  std::string informationUri;      // empty: omitted
  std::string helpUriTemplate;     // "{id}" is replaced by the rule id; empty: no helpUri
  std::filesystem::path sourceRoot;  // absolute; URIs are made relative to it
  std::vector<SarifRule> rules;
  // The run's invocation: toolExecutionNotifications and executionSuccessful
  // (false when something was not checked or a signal stopped the run).
  RunStats stats;
};

std::string renderSarif(std::span<const Diagnostic> diagnostics, SourceText& sources,
                        const SarifOptions& options);

}  // namespace fenceline::report
