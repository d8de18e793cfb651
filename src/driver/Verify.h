// --verify: the test harness built into the checker (clang's -verify idea).
// Source files carry their expectations on the lines they concern:
//
//     consume(buf[i]);   // expect: proxy-war
//     // expect: proxy-war, proxy-raw     (several ids; repeat an id for two findings)
//     arrive(bar);       // expect-strict: proxy-war   (a strict-tier finding)
//
// `expect:` asks for a default-tier finding, `expect-strict:` for a
// strict-tier one (report/Evidence.h); a finding meets only an expectation of
// its own tier. Without --strict, strict-tier findings are not reported and
// `expect-strict:` lines are not checked; with it, both are.
// A diagnostic meets an expectation when any frame of its primary location's
// inline chain is at that file and line (frames tried innermost first); each
// expectation is met by at most one diagnostic. Missing expectations and
// unexpected diagnostics are both reported; a file with no expectations must
// produce no diagnostics. Suppressions apply before verification.
#pragma once

#include <string>
#include <vector>

#include "report/Diagnostic.h"
#include "report/SourceText.h"
#include "report/Text.h"

namespace fenceline::driver {

struct VerifyResult {
  bool ok = true;
  std::string output;   // errors for missing and unexpected diagnostics
  size_t matched = 0, missing = 0, unexpected = 0;
};

// sourceFiles: the files whose `// expect:` comments count (the .cu inputs and
// the project sources their PTX names).
VerifyResult verify(const std::vector<report::Diagnostic>& diagnostics, const std::vector<std::string>& sourceFiles,
                    report::SourceText& sources, const report::TextOptions& textOptions, bool strict);

}  // namespace fenceline::driver
