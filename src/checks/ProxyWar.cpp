// proxy-war: a generic-proxy access of shared memory (ld/st/atom .shared,
// ldmatrix, stmatrix, generic pointers into shared memory) is followed by an
// async-proxy write of the same buffer (a TMA / bulk-copy refill) with no
// fence.proxy.async that counts on the way. The hand-off is an mbarrier
// arrive the issuer waits on, a bar.sync, or the same thread's program order
// (ProxyCommon.h decides which fences count). Reported at the hand-off, with
// notes at the unfenced access and the async write; one diagnostic per
// source-level hand-off site.
#include <fmt/format.h>

#include <cstdlib>

#include "checks/Checks.h"
#include "checks/ProxyCommon.h"
#include "model/Memory.h"
#include "model/Values.h"

namespace fenceline::checks {

namespace {

using namespace proxy;

constexpr std::string_view kMessage =
    "generic-proxy access of shared memory is handed to an async-proxy write (bulk/TMA copy) without "
    "fence.proxy.async";

std::string fixFor(HandOff::Kind kind) {
  switch (kind) {
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
  return "insert fence.proxy.async.shared::cta between this thread's last generic access of the buffer and the "
         "copy";
}

report::Diagnostic render(const FunctionModel& fn, const Finding& f) {
  report::Diagnostic d;
  d.check = "proxy-war";
  d.severity = report::Severity::Warning;
  d.message = std::string(kMessage);
  d.function = functionName(fn);
  d.location = report::locationOf(fn, f.site);
  for (InstId a : f.accesses) {
    const bool writes = fn.instructions[a].effect.writes;
    d.notes.push_back({fmt::format("unfenced generic {} of the buffer ({})", writes ? "write" : "read",
                                   describe(fn, a)),
                       report::locationOf(fn, a)});
  }
  for (InstId c : f.asyncs)
    d.notes.push_back({fmt::format("async-proxy write that may overwrite it ({})", describe(fn, c)),
                       report::locationOf(fn, c)});
  if (f.fence >= 0) d.notes.push_back(fenceNote(fn, f));
  d.fix = fixFor(f.kind);
  return d;
}

}  // namespace

void checkProxyWar(const model::FunctionModel& fn, Findings& out) {
  std::vector<InstId> copies, accesses;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;  // unreachable code
    if (isAsyncSharedWrite(fn, i)) copies.push_back(i);
    else if (isGenericSharedAccess(fn, i)) accesses.push_back(i);
  }
  // FENCELINE_DEBUG_MEMORY=1 prints where each access and copy lands (for triaging real code).
  if (std::getenv("FENCELINE_DEBUG_MEMORY")) {
    for (InstId c : copies)
      fmt::print(stderr, "copy   ptx:{} {} -> {}\n", fn.instructions[c].syntax->pos.line, describe(fn, c),
                 fn.memory->copyDestination(c).toString());
    for (InstId a : accesses)
      fmt::print(stderr, "access ptx:{} {} -> {} ({})\n", fn.instructions[a].syntax->pos.line, describe(fn, a),
                 fn.memory->location(a, fn.instructions[a].effect.address).toString(),
                 fn.values->operandValue(a, fn.instructions[a].effect.address).toString());
    for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i)
      if (isMbarrierWait(fn, i) || isHandOffArrive(fn, i))
        fmt::print(stderr, "mbar   ptx:{} {} -> {} ({})\n", fn.instructions[i].syntax->pos.line,
                   fn.instructions[i].opcode() + (isMbarrierWait(fn, i) ? ".wait" : ".arrive"),
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
  ReachCache reach(fn);
  // An access fenced before any hand-off or copy pairs with no copy: in an
  // unrolled pipeline that is nearly every one, and the pairs stay few.
  std::vector<InstId> open;
  for (InstId access : accesses)
    if (!reach.sealed(access)) open.push_back(access);
  const AccessIndex index(fn, std::move(open));
  for (InstId copy : copies) {
    const int destination = fn.instructions[copy].effect.destination;
    const IssuerWaits issuer = reach.issuerWaits(copy);
    const int64_t extent = copyExtent(fn, copy, destination);
    for (InstId access : index.candidates(fn.memory->location(copy, destination, extent))) {
      // The cheap per-access test first: most pairs of an unrolled pipeline end there.
      if (!mayHandOff(fn, reach, access, copy, issuer)) continue;
      if (!mayOverlap(fn, access, copy, destination, extent)) continue;
      HandOff h = analyzeHandOff(fn, reach, access, copy, issuer, /*reportAtAsync=*/false);
      if (!h.hazard) continue;
      findings.add(fn, h, access, copy);
    }
  }
  findings.emit(fn, render, out);
}

}  // namespace fenceline::checks
