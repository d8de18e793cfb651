// Entry point of the PTX front end: text in, syntax tree out.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "ptx/Ast.h"

namespace fenceline::ptx {

// A malformed input. what() is "file:line:col: message"; excerpt is the
// offending source line with a caret under the column.
struct ParseError : std::runtime_error {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
  std::string excerpt;
  ParseError(std::string file, uint32_t line, uint32_t column, std::string message, std::string excerpt);
};

// Parses a whole PTX module. Throws ParseError on malformed input; never
// crashes or hangs on any byte sequence.
Module parseModule(std::string_view text, std::string path);

}  // namespace fenceline::ptx
