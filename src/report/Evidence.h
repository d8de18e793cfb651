// The evidence behind a finding: each link of the hazard (the access and the
// async operation, the hand-off between them, why they touch the same bytes;
// the data write, the signal, the poll that observes it, the read of that
// data, the partner), where it is, and how the analysis decided it.
//
// A finding whose links are all decided is a default-tier warning: a claim
// the analysis can back. A link that rests on "could not tell" (an unknown
// pointer, an undecoded descriptor, an unbounded index, an unknown partner),
// or a rule the field disputes, makes the finding strict tier: not reported
// unless asked for (--strict, `strict = true`), and then at note level with
// the link that could not be decided (docs/cli.md, "Evidence and tiers";
// ../shared/ordering-rules.md, "Evidence before a warning").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/Location.h"

namespace fenceline::report {

// What a link is. One table (Evidence.cpp) names each for JSON, SARIF and text.
enum class LinkKind : uint8_t {
  Access,          // a generic-proxy access of the buffer (proxy checks; bulk-store-reuse's overwrite)
  AsyncOperation,  // the async-proxy operation: bulk/TMA copy, wgmma / tcgen05 operand read
  HandOff,         // what passes the buffer on: bar.sync, mbarrier arrive/wait, the same thread's order
  SameBytes,       // why two operations touch the same bytes (or the same flag word)
  DataWrite,       // a write the signal publishes
  Signal,          // the flag store or arrival that a partner observes
  Poll,            // the load that observes the signal
  GuardedRead,     // a read of the published data after the wait
  Partner,         // the thread on the other side: another block, another rank's copy, the host
  Ordering,        // the ordering operation at issue (a fence, an acquire, a release and its scope)
  Barrier,         // the barrier or counter the check is about (barrier checks, mbarrier init)
  Use,             // a use of that barrier or counter (an arrival, a wait, another block's update)
};

std::string_view toString(LinkKind kind);  // "access", "async-operation", "hand-off", ...

struct EvidenceLink {
  LinkKind kind = LinkKind::Access;
  bool decided = true;
  // How it was decided, a short tag from the vocabulary in docs/cli.md
  // ("must-alias", "same-object", "same-stage", "decoded-descriptor",
  // "program-order", "bar.sync", "mbarrier", "same-elected-thread",
  // "signal-in-kernel", "peer-pointer", "sys-scope-signal", ...); for an
  // undecided link, what could not be told ("unknown-pointer",
  // "unbounded-index", "undecoded-descriptor", "unknown-partner", ...).
  std::string how;
  std::string detail;  // one sentence for people ("" when the tag says it all)
  // Where the link is; none for a link that is not one instruction (a
  // partner outside the kernel, the bytes two accesses share).
  std::optional<Location> location;
};

// The tier of a finding: every link decided and the rule undisputed, or not.
enum class Tier : uint8_t { Default, Strict };
std::string_view toString(Tier tier);  // "default", "strict"

}  // namespace fenceline::report
