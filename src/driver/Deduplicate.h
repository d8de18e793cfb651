// One report per source site, in two steps.
//
// Unrolled copies: pipelines are unrolled by their stage count, so one source
// line can become several PTX instructions that each trip a check;
// diagnostics with the same check and the same location chain (every frame's
// file, line, column and function) are one finding. The first one, in the
// order the checks produced them, is kept.
//
// Instantiations: a template kernel instantiated for several types (or tile
// shapes) is several PTX functions with one source; a bug in its body is one
// bug. Diagnostics with the same check and the same chain of user lines (the
// primary frame and its callers: file, line and column, not the function
// names, which carry the template arguments) found in different kernels are
// one finding, reported in the first kernel; `instantiations` lists every
// kernel that reached the site, the reported one first.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "report/Diagnostic.h"

namespace fenceline::driver {

std::vector<report::Diagnostic> deduplicate(std::vector<report::Diagnostic> diagnostics);

// What deduplicate() reads of a finding: a strict-tier finding that is not
// reported (no --strict) is kept as these only, to be counted, not its 4 KB
// of locations and evidence (docs/performance.md, session 16).
// Each key is kept as two independent 64-bit hashes of its text (a copy
// key spells every inlined frame: a KB on NVSHMEM's transfer functions, of
// which an image hides 10,000): equal texts give equal keys, and two texts
// give equal keys with a probability of about 2^-128.
struct KeyHash {
  uint64_t first = 0, second = 0;
  auto operator<=>(const KeyHash&) const = default;
};
KeyHash keyHash(std::string_view text);
struct FindingKeys {
  KeyHash copy, site, function;
  report::Severity severity = report::Severity::Warning;
};
FindingKeys keysOf(const report::Diagnostic& diagnostic);
// deduplicate(diagnostics).size() for the diagnostics the keys were taken from, in order.
size_t countDeduplicated(const std::vector<FindingKeys>& keys);

// The same, one input at a time, for a report that streams (text output
// printed as each input is done): add() returns what of its batch is new.
// Within a batch it is deduplicate(); a batch's copy of a site an earlier
// batch reported is dropped, and the earlier finding (already printed) does
// not list the later batch's kernels among its instantiations.
class IncrementalDeduplicator {
 public:
  std::vector<report::Diagnostic> add(std::vector<report::Diagnostic> batch);

 private:
  std::set<std::string> copies_;
  std::map<std::string, std::vector<std::string>> siteKernels_;  // kernels per site, first = reported
};

// Orders diagnostics by primary location (file, line, column), then check id;
// stable, so equal sites keep the checks' order.
void sortByLocation(std::vector<report::Diagnostic>& diagnostics);

}  // namespace fenceline::driver
