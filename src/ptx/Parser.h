// Entry point of the PTX front end: text in, syntax tree out.
#pragma once

#include <functional>
#include <memory>
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

class ModuleParser;

// A PTX module read one function body at a time, so that a 100 MB file of
// thousands of kernels is never a syntax tree all at once. The constructor
// reads everything but the bodies (version, target, .file, globals, function
// headers, .debug_str names) and finds where each body ends; load() parses
// one body into module().functions[index], release() frees it again (the
// header stays; a later load() parses it anew). `text` must outlive the
// reader. Throws ParseError on malformed input, from the constructor or from
// load(); the error is the file's first, as if it had been read in one pass.
class ModuleReader {
 public:
  // `progress`: see ModuleParser::readModule.
  ModuleReader(std::string_view text, std::string path, const std::function<void(size_t)>& progress = {});
  ~ModuleReader();
  ModuleReader(const ModuleReader&) = delete;
  ModuleReader& operator=(const ModuleReader&) = delete;

  // Bodies not loaded have hasBody set and no instructions.
  const Module& module() const;
  void load(size_t index);
  void release(size_t index);
  bool isLoaded(size_t index) const;
  // Instructions of all bodies, as counted by the first pass (model::InliningBudget).
  size_t instructionCount() const;
  // Bytes of function `index`'s PTX text (0 without a body).
  size_t textBytes(size_t index) const;

 private:
  std::unique_ptr<ModuleParser> parser_;
};

// Parses a whole PTX module, every body loaded. Throws ParseError on
// malformed input; never crashes or hangs on any byte sequence.
Module parseModule(std::string_view text, std::string path);

}  // namespace fenceline::ptx
