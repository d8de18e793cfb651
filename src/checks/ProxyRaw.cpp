// proxy-raw: shared memory written through the generic proxy (st.shared,
// stmatrix, atomics, generic pointers into shared memory) is then read by the
// async proxy (a TMA / bulk store out of shared memory, wgmma or tcgen05
// operands) with no fence.proxy.async that counts on the way: every writer
// before the barrier that gathers the writes, or the issuing thread after it.
// Reported at the async read, with notes at the unfenced writes; one
// diagnostic per source-level site.
#include <fmt/format.h>

#include <vector>

#include "checks/Checks.h"
#include "checks/ProxyCommon.h"

namespace fenceline::checks {

namespace {

using namespace proxy;

std::string whatReads(const FunctionModel& fn, InstId read) {
  if (readsThroughDescriptor(fn, read)) return fmt::format("{} operand", describe(fn, read));
  return describe(fn, read);
}

report::Diagnostic render(const FunctionModel& fn, const Finding& f) {
  report::Diagnostic d;
  d.check = "proxy-raw";
  d.severity = report::Severity::Warning;
  d.message = fmt::format(
      "shared memory written through the generic proxy is read by the async proxy ({}) without fence.proxy.async",
      whatReads(fn, f.site));
  d.function = functionName(fn);
  d.location = report::locationOf(fn, f.site);
  for (InstId w : f.accesses)
    d.notes.push_back({fmt::format("unfenced generic write of shared memory ({})", describe(fn, w)),
                       report::locationOf(fn, w)});
  if (f.fence >= 0) d.notes.push_back(fenceNote(fn, f));
  d.fix = fmt::format(
      "insert fence.proxy.async.shared::cta after the writes, executed by every writing thread before the barrier "
      "that gathers them; or by each thread that issues the {} after that barrier and before issuing it",
      describe(fn, f.site));
  return d;
}

}  // namespace

void checkProxyRaw(const model::FunctionModel& fn, Findings& out) {
  std::vector<InstId> reads, writes;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (isAsyncSharedRead(fn, i)) reads.push_back(i);
    else if (isGenericSharedWrite(fn, i)) writes.push_back(i);
  }
  if (reads.empty() || writes.empty()) return;

  FindingSet findings;
  ReachCache reach(fn);
  // A write fenced before any hand-off or async read pairs with no read.
  std::erase_if(writes, [&](InstId write) { return reach.sealed(write); });
  for (InstId read : reads) {
    const int source = fn.instructions[read].effect.source;
    const IssuerWaits issuer = reach.issuerWaits(read);
    const int64_t extent = copyExtent(fn, read, source);
    for (InstId write : writes) {
      if (!mayHandOff(fn, reach, write, read, issuer)) continue;  // cheap, per write
      if (!mayOverlap(fn, write, read, source, extent)) continue;
      HandOff h = analyzeHandOff(fn, reach, write, read, issuer, /*reportAtAsync=*/true);
      if (!h.hazard) continue;
      findings.add(fn, h, write, read);
    }
  }
  findings.emit(fn, render, out);
}

}  // namespace fenceline::checks
