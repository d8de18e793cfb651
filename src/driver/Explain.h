// What the check table says about itself: `fenceline list-checks`,
// `fenceline explain CHECK` (prints docs/checks/<id>.md) and the SARIF rules.
// The doc pages are found next to the sources (FENCELINE_SOURCE_DIR, set at
// build time), relative to the binary (../docs, for a build folder inside the
// repository), or in an installed share folder (../share/fenceline/docs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/Sarif.h"

namespace fenceline::driver {

// The text of a doc page ("docs/checks/<id>.md"), when found.
std::optional<std::string> readDocPage(std::string_view docPage);

int listChecks(const std::string& format);   // text | json; returns the exit status
int explainCheck(const std::string& id);     // returns the exit status

std::vector<report::SarifRule> sarifRules();

}  // namespace fenceline::driver
