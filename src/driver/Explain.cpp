// list-checks, explain and SARIF rules from the check table (see Explain.h).
#include "driver/Explain.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checks/CheckTable.h"
#include "driver/CheckSelection.h"
#include "driver/DidYouMean.h"
#include "driver/TerminalMarkdown.h"
#include "report/SourceText.h"

namespace fenceline::driver {

namespace fs = std::filesystem;

namespace {

fs::path executableDir() {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path() : self.parent_path();
}

// Installed location first, so an installed binary reads the pages installed
// with it even when the source tree it was built from is still there.
std::vector<fs::path> docRoots() {
  std::vector<fs::path> roots;
  if (fs::path dir = executableDir(); !dir.empty()) {
    roots.push_back(dir.parent_path() / "share" / "fenceline");
    roots.push_back(dir.parent_path());
  }
#ifdef FENCELINE_SOURCE_DIR
  roots.emplace_back(FENCELINE_SOURCE_DIR);
#endif
  return roots;
}

// SARIF rule tags by check family (id prefix); every check gets the first row.
struct FamilyTags {
  std::string_view prefix;
  std::vector<std::string> tags;
};
const FamilyTags kFamilyTags[] = {
    {"", {"correctness", "concurrency", "memory-ordering"}},
    {"proxy-", {"async-proxy"}},
    {"barrier-", {"barrier"}},
    {"acquire-", {"acquire-release"}},
    {"release-", {"acquire-release"}},
    {"scope-", {"scope"}},
};

std::vector<std::string> tagsOf(std::string_view id) {
  std::vector<std::string> tags;
  for (const auto& family : kFamilyTags)
    if (id.starts_with(family.prefix)) tags.insert(tags.end(), family.tags.begin(), family.tags.end());
  return tags;
}

// The first prose paragraph of a doc page (skipping headings and "**Key:**"
// metadata lines): SARIF's fullDescription.
std::string firstParagraph(const std::string& page) {
  std::string paragraph;
  bool skipping = false;  // inside a metadata paragraph
  for (const auto& line : report::splitLines(page)) {
    bool blank = line.find_first_not_of(" \t") == std::string::npos;
    if (blank || line.starts_with("#")) {
      if (!paragraph.empty()) break;
      skipping = false;
      continue;
    }
    if (paragraph.empty() && (skipping || line.starts_with("**") || line.starts_with("```"))) {
      skipping = true;
      continue;
    }
    paragraph += (paragraph.empty() ? "" : " ") + line;
  }
  return paragraph;
}

}  // namespace

std::optional<std::string> readDocPage(std::string_view docPage) {
  for (const auto& root : docRoots()) {
    std::ifstream in(root / docPage);
    if (!in) continue;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  return std::nullopt;
}

int listChecks(const std::string& format) {
  if (format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& check : checks::allChecks())
      list.push_back({{"id", check.id},
                      {"severity", report::toString(check.severity)},
                      {"summary", check.summary},
                      {"doc", check.docPage}});
    std::cout << list.dump(2) << "\n";
    return 0;
  }
  size_t width = 0;
  for (const auto& check : checks::allChecks()) width = std::max(width, check.id.size());
  for (const auto& check : checks::allChecks())
    std::cout << fmt::format("{:<{}}  {:<7}  {}\n", check.id, width, report::toString(check.severity), check.summary);
  return 0;
}

int explainCheck(const std::string& id, const std::string& color) {
  if (id.empty()) {
    std::cout << "The checks (run 'fenceline explain CHECK' for one check's page):\n";
    return listChecks("text");
  }
  const checks::CheckInfo* check = checks::findCheck(id);
  if (!check) {
    auto suggestion = closestMatch(id, checkIdList());
    std::cerr << (suggestion ? fmt::format("error: unknown check '{}'; did you mean '{}'? The checks are:\n", id, *suggestion)
                             : fmt::format("error: unknown check '{}'; the checks are:\n", id));
    for (const auto& known : checks::allChecks()) std::cerr << fmt::format("  {}\n", known.id);
    return 2;
  }
  if (auto page = readDocPage(check->docPage)) {
    bool styled = color == "always" || (color == "auto" && ::isatty(1) && !std::getenv("NO_COLOR"));
    std::string text = styled ? renderMarkdownForTerminal(*page) : *page;
    std::cout << text;
    if (!text.empty() && text.back() != '\n') std::cout << "\n";
    return 0;
  }
  std::cout << fmt::format("{} ({}): {}\n", check->id, report::toString(check->severity), check->summary);
  std::cerr << fmt::format("note: the documentation page {} was not found\n", check->docPage);
  return 0;
}

std::vector<report::SarifRule> sarifRules() {
  std::vector<report::SarifRule> rules;
  for (const auto& check : checks::allChecks()) {
    report::SarifRule rule;
    rule.id = check.id;
    rule.shortDescription = check.summary;
    rule.level = check.severity;
    rule.tags = tagsOf(check.id);
    if (auto page = readDocPage(check.docPage)) {
      rule.helpMarkdown = *page;
      rule.fullDescription = firstParagraph(*page);
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace fenceline::driver
