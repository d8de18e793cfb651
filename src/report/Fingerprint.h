// A finding's identity across runs, for baselines (--baseline) and SARIF's
// partialFingerprints: a hash of the check, the file (relative to the project
// root, so it does not depend on where the repository is checked out), the
// function chain of the inline frames, and the text of the flagged line
// (trimmed; its number only when the text cannot be read). Lines added or
// removed elsewhere do not change it; editing the flagged line or moving it
// to another function does. Findings with the same key are numbered in
// report order (":1", ":2", ...) so identical lines stay distinct.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "report/Diagnostic.h"
#include "report/SourceText.h"

namespace fenceline::report {

// The file as it appears in fingerprints and SARIF URIs: relative to root when
// it lies under it (or is relative already), else absolute and normalized.
std::string projectRelativePath(const std::string& file, const std::filesystem::path& root);

// Sets `fingerprint` of every diagnostic ("<16 hex digits>:<occurrence>").
void assignFingerprints(std::vector<Diagnostic>& diagnostics, const std::filesystem::path& root, SourceText& sources);

}  // namespace fenceline::report
