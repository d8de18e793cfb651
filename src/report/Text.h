// The compiler-style text renderer:
//
//   kernel.cu:12:5: warning: message [check-id]
//       x = buf[i];
//       ^
//   kernel.cu:9:3: note: note message
//       ...
//   /usr/local/cuda/include/sm_60_atomic_functions.hpp:75:3: note: expanded from 'atomicAdd(int*, int)'
//   helpers.cuh:40:7: note: inlined from 'consume'
//   note: one finding for 3 instantiations reaching this site (...)
//   note: in PTX file kernel.ptx
//   fix: what to insert, where, executed by whom
//
// The location is the user's line (report/Frames.h). An "expanded from 'f'"
// line follows for each library frame below it, from the user's call inwards
// (the innermost, where the instruction is, quoted). An "inlined from 'f'"
// line names the caller and points at the call site in it (GCC's convention),
// one line per outer frame, innermost caller first. With showPtx, each
// location is followed by the PTX line it came from (`  ptx:LINE: text`).
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
  bool showPtx = false;      // --show-ptx: the PTX line under each location
};

std::string renderText(const Diagnostic& diagnostic, SourceText& sources, const TextOptions& options);
std::string renderText(std::span<const Diagnostic> diagnostics, SourceText& sources, const TextOptions& options);

// "2 warnings in 1 function (3 functions checked in 2 files, 0.41 s)".
std::string summaryLine(std::span<const Diagnostic> diagnostics, const RunStats& stats);

}  // namespace fenceline::report
