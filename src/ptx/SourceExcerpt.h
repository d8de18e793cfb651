// Excerpts of PTX text for error messages: the line holding a position, made
// printable, with a caret line under the column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fenceline::ptx {

// The line of `text` that holds byte `offset`, with bytes that a terminal
// would not print shown as '?', then a newline and a caret under `column`
// (tabs in the line are repeated in the caret line so the caret lines up).
// Long lines are cut around the column.
std::string sourceExcerpt(std::string_view text, uint32_t offset, uint32_t column);

}  // namespace fenceline::ptx
