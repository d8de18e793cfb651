// Suppressions in CUDA source. Three spellings, each naming the checks it
// silences (several ids may be listed, globs work):
//   // fenceline: ignore(acquire-missing)      the flagged line or the line below
//   // NOLINT(fenceline-acquire-missing)       this line only (clang-tidy's form)
//   // NOLINTNEXTLINE(fenceline-proxy-*)       the next line only
// In NOLINT lists only ids with the `fenceline-` prefix are fenceline's; the
// others belong to other tools and are left alone (so a bare `NOLINT` or
// `NOLINT(*)` silences nothing here). Every frame of the primary location's
// inline chain counts, so a suppression can sit in a helper or at the call
// site that inlines it. An id that names no check silences nothing and is
// reported as a warning (with a "did you mean"), never ignored quietly.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/Diagnostic.h"
#include "report/SourceText.h"

namespace fenceline::driver {

// One suppression comment found on a line.
struct Suppression {
  enum class Reach { ThisAndNextLine, ThisLine, NextLine };
  Reach reach = Reach::ThisAndNextLine;
  struct Item {
    std::string glob;     // a fenceline check id or glob (prefix removed)
    std::string written;  // as written, for messages
    uint32_t column = 0;  // 1-based
  };
  std::vector<Item> items;
};

// The suppression comments of one source line.
std::vector<Suppression> parseSuppressions(std::string_view line);

std::vector<report::Diagnostic> applySuppressions(std::vector<report::Diagnostic> diagnostics,
                                                  report::SourceText& sources);

// True when `line` carries a suppression comment that names `check`, for the
// flagged line itself (`sameLine`) or for the line below it.
bool suppresses(std::string_view line, std::string_view check, bool sameLine = true);

// Warnings ("FILE:LINE:COL: warning: ...") for suppression ids that name no
// check, in the given source files (each read once).
std::vector<std::string> unknownSuppressionIds(const std::vector<std::string>& files, report::SourceText& sources);

}  // namespace fenceline::driver
