// "did you mean": the closest known word to a misspelled one, for the
// messages about unknown subcommands, options, check ids and config keys.
// Closeness is the edit distance (insertions, deletions, substitutions and
// swaps of neighbours); a suggestion is made only when the distance is small
// against the word's length, so `--formt` suggests `--format` but `--xyz`
// suggests nothing.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace fenceline::driver {

std::optional<std::string> closestMatch(std::string_view word, std::span<const std::string> candidates);

// "; did you mean 'X'?" or "" (for appending to an error message).
std::string didYouMean(std::string_view word, std::span<const std::string> candidates);

// For a command line that CLI11 rejected: an "unknown command" or "unknown
// option" message with a suggestion, when the first misspelled word can be
// named; "" otherwise (then CLI11's own message is printed).
std::string unknownArgumentMessage(const CLI::App& app, int argc, char** argv);

}  // namespace fenceline::driver
