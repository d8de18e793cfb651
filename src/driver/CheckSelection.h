// `--checks GLOBS`: which checks of the table run. Comma-separated globs are
// applied left to right to the full set; `glob` enables the checks it matches,
// `-glob` disables them (`--checks='-*,proxy-*'` runs only the proxy checks,
// `--checks='-*'` runs none). A glob that matches no check is an error, so a
// misspelled id never silently disables checking.
#pragma once

#include <string>
#include <vector>

#include "checks/CheckTable.h"

namespace fenceline::driver {

// Returns false and sets error on a glob that matches nothing.
bool selectChecks(const std::string& globs, std::vector<const checks::CheckInfo*>& selected, std::string& error);

// The table's ids, comma-separated (for error messages).
std::string knownCheckIds();

}  // namespace fenceline::driver
