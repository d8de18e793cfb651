// Check selection by globs (see CheckSelection.h).
#include "driver/CheckSelection.h"

#include <fnmatch.h>

#include <sstream>

#include <fmt/format.h>

#include "driver/DidYouMean.h"

namespace fenceline::driver {

namespace {

struct GlobItem {
  bool enable;
  std::string glob;
};

std::vector<GlobItem> splitGlobs(const std::string& globs) {
  std::vector<GlobItem> items;
  std::stringstream list(globs);
  for (std::string item; std::getline(list, item, ',');) {
    size_t begin = item.find_first_not_of(" \t"), end = item.find_last_not_of(" \t");
    if (begin == std::string::npos) continue;
    item = item.substr(begin, end - begin + 1);
    bool enable = item.front() != '-';
    items.push_back({enable, enable ? item : item.substr(1)});
  }
  return items;
}

bool matches(const std::string& glob, std::string_view id) {
  return ::fnmatch(glob.c_str(), std::string(id).c_str(), 0) == 0;
}

std::string unknownGlobError(const std::string& glob) {
  return fmt::format("error: unknown check '{}' in --checks{} (known checks: {})", glob,
                     didYouMean(glob, checkIdList()), knownCheckIds());
}

}  // namespace

std::string knownCheckIds() {
  std::string ids;
  for (const auto& check : checks::allChecks()) ids += (ids.empty() ? "" : ", ") + std::string(check.id);
  return ids;
}

std::vector<std::string> checkIdList() {
  std::vector<std::string> ids;
  for (const auto& check : checks::allChecks()) ids.emplace_back(check.id);
  return ids;
}

bool validateCheckGlobs(const std::string& globs, std::string& error) {
  for (const auto& item : splitGlobs(globs)) {
    bool matched = false;
    for (const auto& check : checks::allChecks()) matched = matched || matches(item.glob, check.id);
    if (!matched) {
      error = fmt::format("unknown check '{}'{} (known checks: {})", item.glob, didYouMean(item.glob, checkIdList()),
                          knownCheckIds());
      return false;
    }
  }
  return true;
}

bool globsSelect(const std::string& globs, std::string_view id) {
  bool selected = false;
  for (const auto& item : splitGlobs(globs))
    if (matches(item.glob, id)) selected = item.enable;
  return selected;
}

bool selectChecks(const std::vector<std::string>& globLists, std::vector<const checks::CheckInfo*>& selected,
                  std::string& error) {
  auto table = checks::allChecks();
  std::vector<bool> enabled(table.size(), true);
  for (const auto& globs : globLists) {
    for (const auto& item : splitGlobs(globs)) {
      bool matched = false;
      for (size_t i = 0; i < table.size(); ++i) {
        if (!matches(item.glob, table[i].id)) continue;
        enabled[i] = item.enable;
        matched = true;
      }
      if (!matched) {
        error = unknownGlobError(item.glob);
        return false;
      }
    }
  }
  selected.clear();
  for (size_t i = 0; i < table.size(); ++i)
    if (enabled[i]) selected.push_back(&table[i]);
  return true;
}

bool selectChecks(const std::string& globs, std::vector<const checks::CheckInfo*>& selected, std::string& error) {
  return selectChecks(std::vector<std::string>{globs}, selected, error);
}

}  // namespace fenceline::driver
