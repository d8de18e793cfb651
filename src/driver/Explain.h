// What the check table says about itself: `fenceline list-checks`,
// `fenceline explain CHECK` (prints docs/checks/<id>.md; with no CHECK, the
// list of checks) and the SARIF rules. The doc pages are found, in this
// order, in the installed share folder (<bin>/../share/fenceline/docs, where
// `cmake --install` and the pip package put them), relative to the binary
// (<bin>/../docs, for a build folder inside the repository), or next to the
// sources (FENCELINE_SOURCE_DIR, set at build time).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/Sarif.h"

namespace fenceline::driver {

// The text of a doc page ("docs/checks/<id>.md"), when found.
std::optional<std::string> readDocPage(std::string_view docPage);

int listChecks(const std::string& format);   // text | json; returns the exit status
// color: auto (Markdown rendered for a terminal when stdout is one), always, never.
int explainCheck(const std::string& id, const std::string& color);  // returns the exit status

std::vector<report::SarifRule> sarifRules();

}  // namespace fenceline::driver
