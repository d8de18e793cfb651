// Baselines: adopting fenceline in a codebase that already has findings.
// `--write-baseline FILE` records the current findings (a JSON report, the
// same as --format json, whose entries carry fingerprints); `--baseline FILE`
// then reports only findings whose fingerprint (report/Fingerprint.h: check,
// file, function chain, text of the flagged line) is not in FILE. FILE may be
// such a JSON report or a SARIF log (partialFingerprints "fencelineHash/v1"),
// e.g. the one CI uploaded for the main branch.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "report/Diagnostic.h"

namespace fenceline::driver {

// Reads the fingerprints of a JSON report or SARIF log. Returns false and
// sets error when the file is unreadable, not JSON, or carries none.
bool readBaseline(const std::string& path, std::set<std::string>& fingerprints, std::string& error);

// Removes the findings whose fingerprint is in the baseline; counts them.
std::vector<report::Diagnostic> dropBaselined(std::vector<report::Diagnostic> diagnostics,
                                              const std::set<std::string>& baseline, size_t& dropped);

}  // namespace fenceline::driver
