// Closest-word suggestions (see DidYouMean.h).
#include "driver/DidYouMean.h"

#include <algorithm>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace fenceline::driver {

namespace {

// Optimal string alignment distance (Damerau-Levenshtein without repeated
// edits of one substring): a swap of two neighbours counts as one edit.
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

// "--name" and "-n" spellings of every option of a (sub)command.
std::vector<std::string> optionSpellings(const CLI::App& app) {
  std::vector<std::string> names{"--help"};
  for (const CLI::Option* option : app.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    for (const auto& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

bool isKnownSpelling(std::string_view word, const std::vector<std::string>& names) {
  // "-j4" is "-j" with its value attached.
  for (const auto& name : names)
    if (word == name || (name.size() == 2 && word.size() > 2 && word[1] != '-' && word.starts_with(name))) return true;
  return false;
}

}  // namespace

std::optional<std::string> closestMatch(std::string_view word, std::span<const std::string> candidates) {
  // At most a third of the word may be wrong (at least one edit, at most four).
  size_t limit = std::clamp<size_t>(word.size() / 3, 1, 4);
  std::optional<std::string> best;
  size_t bestDistance = limit + 1;
  for (const auto& candidate : candidates) {
    size_t distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string didYouMean(std::string_view word, std::span<const std::string> candidates) {
  auto match = closestMatch(word, candidates);
  return match ? fmt::format("; did you mean '{}'?", *match) : "";
}

}  // namespace fenceline::driver

namespace fenceline::driver {

std::string unknownArgumentMessage(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(sub->get_name());
  const CLI::App* command = nullptr;
  bool valueNext = false;  // the previous word was an option that takes a value
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word == "--") break;
    if (valueNext) {
      valueNext = false;
      continue;
    }
    if (!command) {
      if (word.starts_with("-")) {
        std::string name = word.substr(0, word.find('='));
        auto names = optionSpellings(app);
        if (isKnownSpelling(name, names)) continue;  // --version, --help: CLI11 handles them
        return fmt::format("error: unknown option '{}'{}", name, didYouMean(name, names));
      }
      for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        if (sub->get_name() == word) command = sub;
      if (!command)
        return fmt::format("error: unknown command '{}'{} (commands: check, list-checks, explain)", word,
                           didYouMean(word, commands));
      continue;
    }
    if (!word.starts_with("-") || word == "-") continue;
    std::string name = word.substr(0, word.find('='));
    auto names = optionSpellings(*command);
    if (isKnownSpelling(name, names)) {
      const CLI::Option* option = command->get_option_no_throw(name);
      valueNext = option && word.find('=') == std::string::npos && option->get_items_expected_min() > 0;
      continue;
    }
    return fmt::format("error: unknown option '{}' for 'fenceline {}'{}", name, command->get_name(),
                       didYouMean(name, names));
  }
  return "";
}

}  // namespace fenceline::driver
