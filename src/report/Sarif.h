// The SARIF 2.1.0 renderer, shaped for GitHub code scanning: one run, the
// check table as `rules`, one result per diagnostic with its primary location
// (relative to the source root when the file lies under it), notes as
// `relatedLocations`, the inline chain as a code flow, and a fingerprint that
// survives unrelated edits (it hashes the check, file, function chain and the
// text of the flagged line, not its number).
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "report/Diagnostic.h"
#include "report/SourceText.h"

namespace fenceline::report {

struct SarifRule {
  std::string id;
  std::string shortDescription;  // the table's one-line summary
  std::string fullDescription;   // first paragraph of the doc page, or the summary
  std::string helpMarkdown;      // the doc page, when found
  std::string helpUri;           // empty: omitted
  Severity level = Severity::Warning;
};

struct SarifOptions {
  std::string toolVersion;
  std::string informationUri;      // empty: omitted
  std::filesystem::path sourceRoot;  // absolute; URIs are made relative to it
  std::vector<SarifRule> rules;
};

std::string renderSarif(std::span<const Diagnostic> diagnostics, SourceText& sources,
                        const SarifOptions& options);

}  // namespace fenceline::report
