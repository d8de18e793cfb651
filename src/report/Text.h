// The compiler-style text renderer:
//
//   kernel.cu:12:5: warning: message [check-id]
//       x = buf[i];
//       ^
//   kernel.cu:9:3: note: note message
//       ...
//   helpers.cuh:40:7: note: inlined from 'consume'
//   fix: what to insert, where, executed by whom
//
// An "inlined from 'f'" line names the caller and points at the call site in
// it (GCC's convention), one line per outer frame, innermost caller first.
#pragma once

#include <span>
#include <string>

#include "report/Diagnostic.h"
#include "report/SourceText.h"
#include "report/Stats.h"

namespace fenceline::report {

struct TextOptions {
  bool color = false;        // ANSI colors (the driver decides: --color, isatty)
  bool showSource = true;    // quote the source line and a caret when readable
};

std::string renderText(const Diagnostic& diagnostic, SourceText& sources, const TextOptions& options);
std::string renderText(std::span<const Diagnostic> diagnostics, SourceText& sources, const TextOptions& options);

// "2 warnings in 1 function (3 functions checked in 2 files, 0.41 s)".
std::string summaryLine(std::span<const Diagnostic> diagnostics, const RunStats& stats);

}  // namespace fenceline::report
