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
#include <map>
#include <string>
#include <optional>
#include <vector>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "checks/ProxyCommon.h"
#include "model/Memory.h"
#include "model/ThreadRoles.h"

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

// Issue 30, shape 7 (cuDNN frontend #1049): other threads write the bytes a
// bulk copy out of shared memory reads, and nothing synchronizes them with
// the thread that issues it. Their own fence.proxy.async orders only their
// own accesses; the issuer's async read is not ordered after their writes at
// all (a barrier among the writers and the issuer, after the writers' fences
// or followed by the issuer's, is what makes the hand-off).
struct Unsynchronized {
  InstId read = -1;
  std::vector<InstId> writes;  // up to kMaxAccessNotes, the first with the best evidence
  std::vector<report::EvidenceLink> evidence;
};

report::Diagnostic renderUnsynchronized(const FunctionModel& fn, const Unsynchronized& u) {
  report::Diagnostic d;
  d.check = "proxy-raw";
  d.severity = report::Severity::Warning;
  d.message = fmt::format(
      "shared memory written by other threads is read by the async proxy ({}) with no barrier between their writes "
      "and this issue: a fence.proxy.async by the writers orders only their own accesses, and nothing orders their "
      "writes before the issuing thread's read",
      whatReads(fn, u.read));
  d.function = functionName(fn);
  d.location = report::locationOf(fn, u.read);
  for (InstId w : u.writes)
    d.notes.push_back({fmt::format("written by threads other than the issuing one ({}); no barrier, mbarrier or warp "
                                   "synchronization lies between this write and the issue",
                                   describe(fn, w)),
                       report::locationOf(fn, w)});
  d.fix = fmt::format(
      "after the writes and their fence.proxy.async.shared::cta, synchronize the writers with the issuing thread "
      "before the {} is issued: __syncthreads() or a named barrier (bar.sync id, count) that every writer and the "
      "issuer execute, outside the branch that elects the issuer",
      describe(fn, u.read));
  // Machine fix: the barrier before the statement that elects the issuer.
  const InstId anchor = electionBranch(fn, u.read);
  d.fixRequest = anchor >= 0 ? barrierAt(fn, anchor, /*after=*/false)
                             : noMachineFix("the statement that elects the issuing thread was not found; insert the "
                                            "barrier before it by hand");
  for (InstId w : u.writes) d.fixRequest.after.push_back(report::locationOf(fn, w));
  d.evidence = u.evidence;
  return d;
}

std::vector<report::EvidenceLink> unsynchronizedEvidence(const FunctionModel& fn, InstId write, InstId read,
                                                         int source, int64_t extent) {
  using report::LinkKind;
  std::vector<report::EvidenceLink> links;
  links.push_back(report::link(fn, LinkKind::Access, write, "other-threads",
                               "threads other than the issuing one make this write (the issue is under a branch on "
                               "the thread index that the write is not)"));
  links.push_back(report::link(fn, LinkKind::HandOff, -1, "no-synchronization",
                               "no barrier, mbarrier or warp synchronization lies on a path from the write to the "
                               "issue"));
  links.push_back(report::link(fn, LinkKind::AsyncOperation, read, describe(fn, read)));
  const int address = fn.instructions[write].effect.address;
  if (!fn.memory || address < 0 || source < 0) {
    links.push_back(report::undecidedLink(fn, LinkKind::SameBytes, -1, "unknown-pointer",
                                          "the addresses could not be analysed"));
    return links;
  }
  int64_t size = fn.memory->accessSize(write, address);
  if (size <= 0) size = kMaxAccessBytes;
  model::AliasEvidence e = fn.memory->aliasEvidence(write, address, size, read, source, extent);
  links.push_back(report::link(fn, LinkKind::SameBytes, -1, e.how, e.detail, e.decided));
  return links;
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
  std::vector<char> isPlainWrite(fn.instructions.size(), 0);  // not a cp.async's completion
  for (const GenericAccess& w : writes)
    if (!w.completesLater()) isPlainWrite[w.access] = 1;

  FindingSet findings;
  std::vector<InstId> foundAt;  // the async reads the hand-off rule reports at
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
      foundAt.push_back(read);
      for (const auto& [write, overlap] : overlapping) findings.add(fn, h, write, read, source, extent, overlap);
    }
  }
  findings.emit(fn, render, out);

  // Other threads' writes that nothing synchronizes with the issuer (issue
  // 30, shape 7): bulk copies out of shared memory (not matrix operands,
  // which a warp group issues together), issued by fewer threads than write.
  std::map<std::string, bool> reported;  // the sites reported already (by the hand-off rule too)
  for (InstId read : foundAt) reported.try_emplace(protocol::siteKey(fn, read), true);
  protocol::ThreadGuards guards(fn);
  std::vector<Unsynchronized> unsynchronized;
  for (InstId read : reads) {
    if (readsThroughDescriptor(fn, read) || !fn.roles || fn.roles->instructionSet(read) == model::ThreadSet::All)
      continue;
    const int source = fn.instructions[read].effect.source;
    const int64_t extent = copyExtent(fn, read, source);
    Unsynchronized u;
    bool decided = false;
    for (InstId w : model::handoff::unsynchronizedBefore(fn, read, [&](InstId i) { return isPlainWrite[i] != 0; })) {
      if (overlapOf(fn, w, read, source, extent) == Overlap::No || !madeByOtherThreads(fn, guards, read, w)) continue;
      std::vector<report::EvidenceLink> links = unsynchronizedEvidence(fn, w, read, source, extent);
      const bool all = std::all_of(links.begin(), links.end(), [](const auto& l) { return l.decided; });
      if (u.evidence.empty() || (all && !decided)) {
        u.evidence = std::move(links);
        u.writes.insert(u.writes.begin(), w);
        decided = all;
      } else if (u.writes.size() < kMaxAccessNotes &&
                 std::none_of(u.writes.begin(), u.writes.end(),
                              [&](InstId x) { return protocol::siteKey(fn, x) == protocol::siteKey(fn, w); })) {
        u.writes.push_back(w);
      }
    }
    if (u.writes.empty()) continue;
    if (u.writes.size() > kMaxAccessNotes) u.writes.resize(kMaxAccessNotes);
    u.read = read;
    if (!reported.try_emplace(protocol::siteKey(fn, read), true).second) continue;
    unsynchronized.push_back(std::move(u));
  }
  for (const Unsynchronized& u : unsynchronized) out.push_back(renderUnsynchronized(fn, u));
}

}  // namespace fenceline::checks
