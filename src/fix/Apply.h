// Using the planned fixes (fix/Planner.h): collecting the edits of all
// findings per file (identical edits from two findings once; an edit that
// overlaps another is refused), writing the edited files (--fix), a unified
// diff of them (--fix-dry-run), and clang-apply-replacements' YAML
// (--export-fixes).
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "report/Diagnostic.h"

namespace fenceline::fix {

// The edits to make, per file, sorted by offset, and what was refused.
struct FixSet {
  std::map<std::string, std::vector<report::Edit>> editsByFile;
  std::vector<bool> fixed;              // per diagnostic: all its edits are in the set
  std::vector<std::string> refusals;    // "FILE:LINE: ...", one per refused diagnostic
  size_t editCount() const;
};

FixSet collectFixes(std::span<const report::Diagnostic> diagnostics);

// A fix that copies a helper (its wider-scope twin) takes into the copy the whole lines other
// findings' fixes insert into the helper (a proxy fence before its arrive), so that the call that
// moves to the twin keeps them. Run once all findings of a run have their edits.
void mergeCopiedLines(std::vector<report::Diagnostic>& diagnostics);

// The new text of a file after its edits (sorted, non-overlapping).
std::string applyEdits(const std::string& text, const std::vector<report::Edit>& edits);

// Writes every edited file in place. Returns false and sets error when one cannot be read or written.
bool writeFixes(const FixSet& fixes, std::string& error);

// A unified diff (`--- a/FILE`, `+++ b/FILE`, 3 lines of context) of every edited file.
std::string unifiedDiff(const FixSet& fixes, std::string& error);

// clang-apply-replacements' YAML: MainSourceFile, and per diagnostic with edits its name, message,
// location and Replacements.
std::string exportFixesYaml(std::span<const report::Diagnostic> diagnostics, const std::string& mainSourceFile);

}  // namespace fenceline::fix
