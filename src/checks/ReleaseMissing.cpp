// release-missing: a signal (a flag store or arrival atomic that a spin loop
// in this function waits on, or an outbound flag whose partner is the host or
// another kernel) follows global writes with no release between them on some
// path. A release is the signal's own .release/.acq_rel/.sc semantics, or "a
// release for this signal" (model/Protocol.h: a release fence, or a release
// store/RMW on the signal's word that heads the release sequence the signal's
// RMW continues) between the write and the signal. Scope is judged by
// ScopeTooNarrow.cpp, from the same definition.
//
// Only writes the partner may read count (the partner model): writes before a
// "slot consumed" signal that the waiting side never reads need no release.
//
// Paths are per-thread CFG paths, which decides the block-wide forms without
// further ado: when every writer fences before bar.sync, or the signaller
// fences after it, every path from a write to the signal passes a fence; when
// only the signaller fences before bar.sync (`if (tid == 0) fence`), the path
// of another thread's write skips that fence, crosses bar.sync and reaches
// the signal: reported.
#include <set>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "model/Paths.h"

namespace fenceline::checks {

using namespace protocol;

namespace {

void checkSignal(const ProtocolModel& ctx, InstId signal, std::set<std::string>& reported, Findings& out) {
  const FunctionModel& fn = ctx.function();
  if (model::hasReleaseSemantics(fn.instructions[signal].effect)) return;
  auto published = [&](InstId i) { return ctx.isPublishedWrite(i, signal); };
  auto release = [&](InstId i) { return ctx.releasesFor(i, signal); };
  std::vector<InstId> writes = model::findReachingBackward(fn, signal, published, release);
  if (writes.empty() || !reported.insert(siteKey(fn, signal)).second) return;
  Scope scope = ctx.requiredScope(signal);
  std::string semantics(model::toString(fn.instructions[signal].effect.semantics));
  auto d = makeDiagnostic(
      fn, signal, "release-missing",
      fmt::format("signal ({} {}) follows data writes without release ordering; a thread that sees it may "
                  "still read the old data",
                  semantics, fn.instructions[signal].effect.kind == model::EffectKind::Store ? "store" : "atomic"),
      fmt::format("insert {0} between the writes and the signal, executed by the signalling thread after the "
                  "__syncthreads() that gathers the writes (or by every writer before it); or make the signal a "
                  "release (st.release{1}, atom.release{1}, cuda::atomic_ref::store(memory_order_release))",
                  fenceSpelling(scope), scopeName(scope)));
  // Machine fix: a release fence on the signalling thread's line before the signal (after the
  // __syncthreads() that gathers the writes, when there is one: cumulativity covers the other writers).
  d.fixRequest = insertBefore(fn, signal, report::FenceToInsert::AcquireRelease, scopeWord(scope));
  d.fixRequest.beforeHelperCall = true;
  for (InstId w : writes) d.fixRequest.after.push_back(report::locationOf(fn, w));
  const InstId shown = addSignalEvidenceOfBestWrite(d, ctx, signal, writes.front(), published, release);
  addNote(d, fn, shown, "this write reaches the signal on a path without a release");
  out.push_back(std::move(d));
}

}  // namespace

void checkReleaseMissing(const FunctionModel& fn, Findings& out) {
  const ProtocolModel& ctx = model::protocolOf(fn);
  std::set<std::string> reported;
  for (InstId signal : ctx.signals()) checkSignal(ctx, signal, reported, out);
  // The partner is outside the kernel (host, later kernel): judged on clear evidence only.
  for (InstId signal : ctx.outboundSignals()) checkSignal(ctx, signal, reported, out);
}

}  // namespace fenceline::checks
