// proxy-war: a generic-proxy access of shared memory (ld/st/atom .shared,
// ldmatrix, stmatrix, generic pointers into shared memory, Ampere cp.async
// writes once the copy completes) is followed by an
// async-proxy write of the same buffer (a TMA / bulk-copy refill) with no
// fence.proxy.async that counts on the way. The hand-off is an mbarrier
// arrive the issuer waits on, a bar.sync, or the same thread's program order
// (ProxyCommon.h decides which fences count). Reported at the hand-off, with
// notes at the unfenced access and the async write; one diagnostic per
// source-level hand-off site, and one for the copies that the same accesses
// reach by program order (one missing fence: FindingSet::groupProgramOrder).
#include <fmt/format.h>

#include <cstdlib>
#include <optional>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProxyCommon.h"
#include "model/Memory.h"
#include "model/Values.h"

namespace fenceline::checks {

namespace {

using namespace proxy;

constexpr std::string_view kMessage =
    "generic-proxy access of shared memory is handed to an async-proxy write (bulk/TMA copy) without "
    "fence.proxy.async";

std::string fixFor(const Finding& f) {
  switch (f.kind) {
    case HandOff::Kind::Arrive:
      return "insert fence.proxy.async.shared::cta after the last access of the buffer and before this arrive, "
             "executed by every thread that accessed it (not only the elected thread); or have the thread that "
             "issues the copy execute it once, after its wait on this barrier and before the copy";
    case HandOff::Kind::Barrier:
      return "insert fence.proxy.async.shared::cta before this barrier, executed by every thread that accessed "
             "the buffer; or after it, executed by the thread that issues the copy, before the copy";
    case HandOff::Kind::SameThread:
      break;
  }
  if (f.groupCopies.empty())
    return "insert fence.proxy.async.shared::cta between this thread's last generic access of the buffer and the "
           "copy";
  if (f.oneFenceCovers)
    return "insert fence.proxy.async.shared::cta between this thread's last generic access of the buffer and this "
           "copy: every path from the accesses to the other copies passes it, so the one fence covers them too";
  return "insert fence.proxy.async.shared::cta after this thread's last generic access of the buffer, before every "
         "copy that follows it (no one copy is on every path to the others: one fence before each)";
}

// The machine fix (report/Fix.h). Consumer style: the fence line goes before
// the hand-off, outside the election around it, so that every thread that
// accessed the buffer executes it after its last access. Producer style: in
// the copy issuer, before the copy (after its wait).
report::FixRequest consumerFix(const FunctionModel& fn, const Finding& f) {
  InstId anchor = f.kind == HandOff::Kind::Arrive ? outsideElection(fn, f.site, f.accesses.front()) : f.site;
  if (anchor < 0)
    return noMachineFix("the election around the hand-off spans the whole function: no line outside it is "
                        "executed by every reading thread");
  auto before = [&](InstId at) {
    auto request = insertBefore(fn, at, report::FenceToInsert::ProxyAsyncShared);
    for (size_t k = 0; k < f.accesses.size(); ++k) request.after.push_back(report::locationOf(fn, fenceAfter(f, k)));
    return request;
  };
  auto request = before(anchor);
  // A program-order group: the one fence before this copy covers the others, or one goes before each.
  if (!f.oneFenceCovers)
    for (InstId copy : f.groupCopies) request.together.push_back(before(copy));
  return request;
}

report::FixRequest producerFix(const FunctionModel& fn, const Finding& f) {
  auto before = [&](InstId copy) {
    auto request = insertBefore(fn, copy, report::FenceToInsert::ProxyAsyncShared);
    request.beforeHelperCall = true;
    for (InstId wait : waitsBefore(fn, copy)) request.after.push_back(report::locationOf(fn, wait));
    return request;
  };
  auto request = before(f.asyncs.empty() ? f.site : f.asyncs.front());  // same-thread hand-offs report at the copy
  if (!f.oneFenceCovers)
    for (InstId copy : f.groupCopies) request.together.push_back(before(copy));
  return request;
}

report::Diagnostic render(const FunctionModel& fn, const Finding& f) {
  report::Diagnostic d;
  d.check = "proxy-war";
  d.severity = report::Severity::Warning;
  d.message = std::string(kMessage);
  d.function = functionName(fn);
  d.location = report::locationOf(fn, f.site);
  for (size_t k = 0; k < f.accesses.size(); ++k) {
    const InstId a = f.accesses[k];
    const bool writes = fn.instructions[a].effect.writes;
    d.notes.push_back({fmt::format("unfenced generic {} of the buffer ({})", writes ? "write" : "read",
                                   describe(fn, a)),
                       report::locationOf(fn, a)});
    if (f.completions[k] >= 0) d.notes.push_back(completionNote(fn, f, k));
  }
  for (InstId c : f.asyncs)
    d.notes.push_back({fmt::format("async-proxy write that may overwrite it ({})", describe(fn, c)),
                       report::locationOf(fn, c)});
  for (InstId c : f.groupCopies)
    d.notes.push_back({fmt::format("another async-proxy write that the same accesses reach in this thread's program "
                                   "order ({}){}",
                                   describe(fn, c), f.oneFenceCovers ? ", after this copy" : ""),
                       report::locationOf(fn, c)});
  if (f.fence >= 0) d.notes.push_back(fenceNote(fn, f));
  d.fix = fixFor(f);
  d.fixRequest = consumerFix(fn, f);
  d.producerFixRequest = producerFix(fn, f);
  d.evidence = f.evidence;
  return d;
}

}  // namespace

void checkProxyWar(const model::FunctionModel& fn, Findings& out) {
  std::vector<InstId> copies;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i)
    if (fn.instructions[i].block >= 0 && isAsyncSharedWrite(fn, i)) copies.push_back(i);
  // FENCELINE_DEBUG_MEMORY=1 prints where each access and copy lands (for triaging real code).
  const bool debug = std::getenv("FENCELINE_DEBUG_MEMORY") != nullptr;
  if (copies.empty() && !debug) return;
  std::optional<ReachCache> local;
  const ReachCache& reach = handOffsOf(fn, local);
  const std::vector<GenericAccess>& accesses = reach.accesses(/*writesOnly=*/false);
  if (debug) {
    for (InstId c : copies)
      fmt::print(stderr, "copy   ptx:{} {} -> {} ({})\n", fn.instructions[c].syntax->pos.line, describe(fn, c),
                 fn.memory->copyDestination(c).toString(),
                 fn.values->operandValue(c, fn.instructions[c].effect.destination).toString());
    for (const GenericAccess& g : accesses) {
      const InstId a = g.access;
      fmt::print(stderr, "access ptx:{} {} -> {} ({}){}\n", fn.instructions[a].syntax->pos.line, describe(fn, a),
                 fn.memory->location(a, fn.instructions[a].effect.address).toString(),
                 fn.values->operandValue(a, fn.instructions[a].effect.address).toString(),
                 g.completesLater() ? fmt::format(", completes at ptx:{}", fn.instructions[g.from].syntax->pos.line)
                                    : "");
    }
    for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i)
      if (isMbarrierWait(fn, i) || isHandOffArrive(fn, i))
        fmt::print(stderr, "mbar   ptx:{} {} -> {} ({})\n", fn.instructions[i].syntax->pos.line,
                   std::string(fn.instructions[i].opcode()) + (isMbarrierWait(fn, i) ? ".wait" : ".arrive"),
                   fn.memory->location(i, fn.instructions[i].effect.address).toString(),
                   fn.values->operandValue(i, fn.instructions[i].effect.address).toString());
    for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i)
      if (readsThroughDescriptor(fn, i)) {
        auto operands = fn.memory->matrixOperands(i);
        std::string text = operands.decoded ? "" : " (not decoded)";
        for (const auto& op : operands.operands) text += " " + op.toString();
        fmt::print(stderr, "mma    ptx:{} {} ->{}\n", fn.instructions[i].syntax->pos.line, describe(fn, i), text);
      }
  }

  if (copies.empty() || accesses.empty()) return;

  FindingSet findings;
  // An access fenced before any hand-off or copy pairs with no copy: in an
  // unrolled pipeline that is nearly every one, and the pairs stay few.
  std::vector<GenericAccess> open;
  for (const GenericAccess& access : accesses)
    if (!reach.sealed(access.from)) open.push_back(access);
  const AccessIndex index(fn, std::move(open));
  for (InstId copy : copies) {
    const int destination = fn.instructions[copy].effect.destination;
    const IssuerWaits issuer = reach.issuerWaits(copy);
    const int64_t extent = copyExtent(fn, copy, destination);
    // Accesses that take effect at one point (the cp.async of a stage at
    // their wait) share one hand-off question: asked once, for those that
    // overlap. Candidates come sorted by that point.
    const std::vector<GenericAccess> candidates = index.candidates(fn.memory->location(copy, destination, extent));
    std::vector<GenericAccess> overlapping;
    for (size_t g = 0, end = 0; g < candidates.size(); g = end) {
      const InstId from = candidates[g].from;
      for (end = g + 1; end < candidates.size() && candidates[end].from == from;) ++end;
      // The cheap per-access test first: most pairs of an unrolled pipeline end there.
      if (!reach.mayHandOff(from, copy, issuer)) continue;
      overlapping.clear();
      for (size_t k = g; k < end; ++k)
        if (mayOverlap(fn, candidates[k].access, copy, destination, extent)) overlapping.push_back(candidates[k]);
      if (overlapping.empty()) continue;
      HandOff h = reach.analyze(from, copy, issuer, /*reportAtAsync=*/false);
      if (!h.hazard) continue;
      for (const GenericAccess& access : overlapping) findings.add(fn, h, access, copy, destination, extent);
    }
  }
  findings.groupProgramOrder(fn);
  findings.emit(fn, render, out);
}

}  // namespace fenceline::checks
