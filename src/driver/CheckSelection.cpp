// Check selection by globs (see CheckSelection.h).
#include "driver/CheckSelection.h"

#include <fnmatch.h>

#include <sstream>

#include <fmt/format.h>

namespace fenceline::driver {

std::string knownCheckIds() {
  std::string ids;
  for (const auto& check : checks::allChecks()) ids += (ids.empty() ? "" : ", ") + std::string(check.id);
  return ids;
}

bool selectChecks(const std::string& globs, std::vector<const checks::CheckInfo*>& selected, std::string& error) {
  auto table = checks::allChecks();
  std::vector<bool> enabled(table.size(), true);
  std::stringstream list(globs);
  for (std::string item; std::getline(list, item, ',');) {
    size_t begin = item.find_first_not_of(" \t"), end = item.find_last_not_of(" \t");
    if (begin == std::string::npos) continue;
    item = item.substr(begin, end - begin + 1);
    bool enable = item.front() != '-';
    std::string glob = enable ? item : item.substr(1);
    bool matched = false;
    for (size_t i = 0; i < table.size(); ++i) {
      if (::fnmatch(glob.c_str(), std::string(table[i].id).c_str(), 0) != 0) continue;
      enabled[i] = enable;
      matched = true;
    }
    if (!matched) {
      error = fmt::format("error: unknown check '{}' in --checks (known checks: {})", glob, knownCheckIds());
      return false;
    }
  }
  selected.clear();
  for (size_t i = 0; i < table.size(); ++i)
    if (enabled[i]) selected.push_back(&table[i]);
  return true;
}

}  // namespace fenceline::driver
