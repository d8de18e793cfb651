// `--checks GLOBS`: which checks of the table run. Comma-separated globs are
// applied left to right to the full set; `glob` enables the checks it matches,
// `-glob` disables them (`--checks='-*,proxy-*'` runs only the proxy checks,
// `--checks='-*'` runs none). The configuration file's `checks` are applied
// first, then the command line's, so the command line has the last word. A
// glob that matches no check is an error (with a "did you mean"), so a
// misspelled id never silently disables checking. The same glob lists select
// the checks of --warnings-as-errors.
#pragma once

#include <string>
#include <vector>

#include "checks/CheckTable.h"

namespace fenceline::driver {

// Applies each glob list in order. Returns false and sets error on a glob that
// matches nothing.
bool selectChecks(const std::vector<std::string>& globLists, std::vector<const checks::CheckInfo*>& selected,
                  std::string& error);
bool selectChecks(const std::string& globs, std::vector<const checks::CheckInfo*>& selected, std::string& error);

// True when every glob of the list matches some check; else sets error.
bool validateCheckGlobs(const std::string& globs, std::string& error);

// True when the glob list (no '-' items: they remove) selects `id`.
bool globsSelect(const std::string& globs, std::string_view id);

// The table's ids, comma-separated (for error messages), and as a list.
std::string knownCheckIds();
std::vector<std::string> checkIdList();

}  // namespace fenceline::driver
