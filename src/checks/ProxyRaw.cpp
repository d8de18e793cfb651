// proxy-raw: shared memory written through the generic proxy (st.shared,
// stmatrix, atomics, generic pointers into shared memory, Ampere cp.async
// once it completes) is then read by the
// async proxy (a TMA / bulk store out of shared memory, wgmma or tcgen05
// operands) with no fence.proxy.async that counts on the way: every writer
// before the barrier that gathers the writes, or the issuing thread after it.
// Reported at the async read, with notes at the unfenced writes; one
// diagnostic per source-level site. A write that meets an MMA's operands only
// where their descriptors are not decoded gives a note, not a warning.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProxyCommon.h"
#include "model/Memory.h"

namespace fenceline::checks {

namespace {

using namespace proxy;

std::string whatReads(const FunctionModel& fn, InstId read) {
  if (readsThroughDescriptor(fn, read)) return fmt::format("{} operand", describe(fn, read));
  return describe(fn, read);
}

// A finding whose writes meet the MMA's operands only where its descriptors
// are not decoded is a note that says what could not be decoded (issue 11):
// the overlap is possible, not established.
report::Diagnostic renderUncertain(const FunctionModel& fn, const Finding& f) {
  report::Diagnostic d;
  d.check = "proxy-raw";
  d.severity = report::Severity::Note;
  d.message = fmt::format(
      "shared memory written through the generic proxy may be read by the async proxy ({}) without "
      "fence.proxy.async: the operands' descriptors are not fully decoded",
      whatReads(fn, f.site));
  d.function = functionName(fn);
  d.location = report::locationOf(fn, f.site);
  model::MemoryAnalysis::MatrixOperands operands = fn.memory->matrixOperands(f.site);
  std::string fewest;
  for (const auto& op : operands.fewest) fewest += (fewest.empty() ? "" : ", ") + op.toString();
  d.notes.push_back({fmt::format("{}; {}", operands.uncertainty,
                                 fewest.empty() ? "every write to shared memory may be an operand"
                                                : "the operands certainly read " + fewest),
                     report::locationOf(fn, f.site)});
  for (size_t k = 0; k < f.accesses.size(); ++k) {
    d.notes.push_back({fmt::format("unfenced generic write of shared memory ({}){}", describe(fn, f.accesses[k]),
                                   fewest.empty() ? "" : ", outside the bytes the operands certainly read"),
                       report::locationOf(fn, f.accesses[k])});
    if (f.completions[k] >= 0) d.notes.push_back(completionNote(fn, f, k));
  }
  if (f.fence >= 0) d.notes.push_back(fenceNote(fn, f));
  d.fix = fmt::format(
      "if the write is part of an operand: insert fence.proxy.async.shared::cta after the writes, executed by every "
      "writing thread before the barrier that gathers them; or by each thread that issues the {} after that barrier",
      describe(fn, f.site));
  d.fixRequest.reason = "the write may be outside the operands; no fence is inserted for a note";
  d.evidence = f.evidence;
  return d;
}

report::Diagnostic render(const FunctionModel& fn, const Finding& f) {
  if (!f.certainOverlap) return renderUncertain(fn, f);
  report::Diagnostic d;
  d.check = "proxy-raw";
  d.severity = report::Severity::Warning;
  d.message = fmt::format(
      "shared memory written through the generic proxy is read by the async proxy ({}) without fence.proxy.async",
      whatReads(fn, f.site));
  d.function = functionName(fn);
  d.location = report::locationOf(fn, f.site);
  for (size_t k = 0; k < f.accesses.size(); ++k) {
    d.notes.push_back({fmt::format("unfenced generic write of shared memory ({}){}", describe(fn, f.accesses[k]),
                                   f.accessUncertain[k] ? ", perhaps outside the operands (not fully decoded)" : ""),
                       report::locationOf(fn, f.accesses[k])});
    if (f.completions[k] >= 0) d.notes.push_back(completionNote(fn, f, k));
  }
  if (f.fence >= 0) d.notes.push_back(fenceNote(fn, f));
  d.fix = fmt::format(
      "insert fence.proxy.async.shared::cta after the writes{}, executed by every writing thread before the barrier "
      "that gathers them; or by each thread that issues the {} after that barrier and before issuing it",
      std::any_of(f.completions.begin(), f.completions.end(), [](InstId c) { return c >= 0; })
          ? " (for a cp.async: after the wait that completes it)"
          : "",
      describe(fn, f.site));
  // Machine fix: the issuing threads fence before the async read (after the barrier or wait that hands
  // them the writes).
  d.fixRequest = insertBefore(fn, f.site, report::FenceToInsert::ProxyAsyncShared);
  d.fixRequest.beforeHelperCall = true;
  for (size_t k = 0; k < f.accesses.size(); ++k) d.fixRequest.after.push_back(report::locationOf(fn, fenceAfter(f, k)));
  d.evidence = f.evidence;
  return d;
}

}  // namespace

void checkProxyRaw(const model::FunctionModel& fn, Findings& out) {
  std::vector<InstId> reads;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i)
    if (fn.instructions[i].block >= 0 && isAsyncSharedRead(fn, i)) reads.push_back(i);
  if (reads.empty()) return;
  std::optional<ReachCache> local;
  const ReachCache& reach = handOffsOf(fn, local);
  std::vector<GenericAccess> writes = reach.accesses(/*writesOnly=*/true);
  if (writes.empty()) return;

  FindingSet findings;
  // A write fenced before any hand-off or async read pairs with no read.
  std::erase_if(writes, [&](const GenericAccess& write) { return reach.sealed(write.from); });
  // A bulk store out of shared memory is paired only with the writes whose
  // bytes it may reach (the index's candidates, a superset of those that
  // overlap, in the same order); an MMA's operands are decoded per read.
  const AccessIndex index(fn, writes);
  for (InstId read : reads) {
    const int source = fn.instructions[read].effect.source;
    const IssuerWaits issuer = reach.issuerWaits(read);
    const int64_t extent = copyExtent(fn, read, source);
    std::optional<model::MemoryAnalysis::MatrixOperands> operands;  // decoded once per read, when first needed
    auto overlap = [&](InstId write) {
      if (!readsThroughDescriptor(fn, read) || !fn.memory) return overlapOf(fn, write, read, source, extent);
      if (!operands) operands = fn.memory->matrixOperands(read);
      return overlapOf(fn, write, read, source, extent, &*operands);
    };
    // Writes that take effect at one point (the cp.async of a stage at their
    // wait) share one hand-off question: asked once, for those that overlap.
    std::vector<std::pair<GenericAccess, Overlap>> overlapping;
    const bool located = !readsThroughDescriptor(fn, read) && fn.memory && source >= 0;
    const std::vector<GenericAccess> candidates =
        located ? index.candidates(fn.memory->location(read, source, extent)) : std::vector<GenericAccess>{};
    const std::vector<GenericAccess>& paired = located ? candidates : writes;
    for (size_t g = 0, end = 0; g < paired.size(); g = end) {
      const InstId from = paired[g].from;
      for (end = g + 1; end < paired.size() && paired[end].from == from;) ++end;
      if (!reach.mayHandOff(from, read, issuer)) continue;  // cheap, per point
      overlapping.clear();
      for (size_t k = g; k < end; ++k) {
        const Overlap o = overlap(paired[k].access);
        if (o != Overlap::No) overlapping.push_back({paired[k], o});
      }
      if (overlapping.empty()) continue;
      HandOff h = reach.analyze(from, read, issuer, /*reportAtAsync=*/true);
      if (!h.hazard) continue;
      for (const auto& [write, overlap] : overlapping) findings.add(fn, h, write, read, source, extent, overlap);
    }
  }
  findings.emit(fn, render, out);
}

}  // namespace fenceline::checks
