// release-missing: a signal (a flag store or arrival atomic that a spin loop
// in this function waits on) follows global writes with no release between
// them on some path. A release is the signal's own .release/.acq_rel/.sc
// semantics, or a release fence (fence.sc/acq_rel/release, membar) between
// the write and the signal. Scope is judged by ScopeTooNarrow.cpp.
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
#include "checks/ProtocolCommon.h"
#include "model/Paths.h"

namespace fenceline::checks {

using namespace protocol;

namespace {

// A floating-point atomic (atomicAdd on float: a split-K reduction into a
// workspace) accumulates data; it is never the flag a waiter polls.
bool isFloatAccumulation(const FunctionModel& fn, InstId i) {
  static constexpr std::string_view kFloatTypes[] = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"};
  for (std::string_view type : kFloatTypes)
    if (fn.instructions[i].hasModifier(type)) return true;
  return false;
}

// A release RMW on the signal's own word, followed by an RMW signal: the signal
// extends that release's release sequence (PTX observation order runs through
// atomic RMWs), so writes before the release are published. libcu++'s barrier
// flips its phase with a relaxed add right after the arriver's acq_rel add.
bool headsReleaseSequence(const Context& ctx, InstId i, InstId signal) {
  const auto& e = ctx.fn.instructions[i].effect;
  return i != signal && ctx.fn.instructions[signal].effect.kind == model::EffectKind::ReadModifyWrite &&
         e.kind == model::EffectKind::ReadModifyWrite && hasReleaseSemantics(e) && ctx.fn.memory->sameWord(i, signal);
}

}  // namespace

void checkReleaseMissing(const FunctionModel& fn, Findings& out) {
  const Context& ctx = contextFor(fn);
  std::set<std::string> reported;
  for (InstId signal : ctx.signals) {
    if (hasReleaseSemantics(fn.instructions[signal].effect) || isFloatAccumulation(fn, signal)) continue;
    auto published = [&](InstId i) { return isPublishedWrite(ctx, i, signal); };
    auto release = [&](InstId i) { return isReleaseFence(fn, i) || headsReleaseSequence(ctx, i, signal); };
    std::vector<InstId> writes = model::findReachingBackward(fn, signal, published, release);
    if (writes.empty() || !reported.insert(siteKey(fn, signal)).second) continue;
    Scope scope = requiredScope(ctx, signal);
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
    addNote(d, fn, writes.front(), "this write reaches the signal on a path without a release");
    out.push_back(std::move(d));
  }
}

}  // namespace fenceline::checks
