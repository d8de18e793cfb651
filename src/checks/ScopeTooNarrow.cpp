// scope-too-narrow: the acquire or release of a flag protocol exists on every
// path, but not at the scope the partner needs (model/Protocol.h's
// requiredScope: .sys on evidence from the signalling side and the addresses
// (peer pointers, .sys signals), .gpu for other global flags; a waiter's own
// .sys acquire is not evidence), and a remote mbarrier arrive without
// .release.cluster. The release side uses the same "release for this signal"
// as release-missing. Reported at
// the operation whose scope is too narrow. When some path has no acquire or
// release at all, acquire-missing / release-missing report it instead.
#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "model/ClusterEvidence.h"
#include "model/Paths.h"

namespace fenceline::checks {

using namespace protocol;

namespace {

const auto kNever = [](InstId) { return false; };

// The links of a too-narrow ordering: the operation, and why the partner
// needs the wider scope (model/Protocol.h requiredScopeEvidence).
void addScopeEvidence(report::Diagnostic& d, const ProtocolModel& ctx, InstId narrow, InstId flag) {
  const FunctionModel& fn = ctx.function();
  d.evidence.push_back(report::link(fn, report::LinkKind::Ordering, narrow,
                                    "scope-" + std::string(model::toString(ctx.scopeOf(narrow)))));
  const ProtocolModel::ScopeEvidence need = ctx.requiredScopeEvidence(flag);
  const std::vector<InstId>& outbound = ctx.outboundSignals();
  if (std::binary_search(outbound.begin(), outbound.end(), flag) && ctx.isOutboundSignal(flag) &&
      ctx.isSystemScopeSignal(flag))
    d.evidence.push_back(report::link(fn, report::LinkKind::Partner, -1, "outbound-sys-flag",
                                      "no wait of this kernel reads the flag, and the kernel raises it at .sys scope: "
                                      "its reader is a thread off this GPU (the host, another GPU)"));
  else if (need.how.empty())
    d.evidence.push_back(report::link(fn, report::LinkKind::Partner, -1, "another-cta",
                                      "the partner is another block of this kernel"));
  else
    d.evidence.push_back(report::link(fn, report::LinkKind::Partner, -1, need.how, need.detail, need.decided));
}

std::string partnerOf(Scope need) {
  return need == Scope::Sys ? "another GPU or the host" : need == Scope::Cluster ? "another CTA of the cluster"
                                                                                  : "another CTA";
}

void checkAcquireSide(const ProtocolModel& ctx, std::set<std::string>& reported, Findings& out) {
  const FunctionModel& fn = ctx.function();
  // The walks test only the candidates: the guarded reads after the poll and
  // the acquire points (the stops and the narrow acquires are among them).
  const std::vector<InstId>& acquires = ctx.acquirePoints();
  const std::vector<InstId> none;
  for (const auto& spin : ctx.spins()) {
    for (InstId poll : spin.polls) {
      Scope need = ctx.requiredScope(poll);
      // As acquire-missing: a floating-point atomic after the wait is not judged (model::isDataUpdate).
      auto guarded = [&](InstId i) { return ctx.isGuardedRead(i, poll) && !model::isDataUpdate(fn, i); };
      const std::vector<InstId>& reads = ctx.guardedReadsAfter(poll);
      auto scopeOf = [&](InstId i) { return ctx.scopeOf(i); };
      InstId narrow = -1;
      if (model::hasAcquireSemantics(fn.instructions[poll].effect)) {
        if (scopeOf(poll) < need && model::findReachable(fn, poll, guarded, kNever, reads, none) >= 0) narrow = poll;
      } else {
        auto anyAcquire = [&](InstId i) { return ctx.isAcquire(i); };
        auto wide = [&](InstId i) { return ctx.isAcquire(i) && scopeOf(i) >= need; };
        if (model::findReachable(fn, poll, guarded, anyAcquire, reads, acquires) >= 0) continue;  // acquire-missing's
        if (model::findReachable(fn, poll, guarded, wide, reads, acquires) < 0) continue;
        auto tooNarrow = [&](InstId i) { return ctx.isAcquire(i) && scopeOf(i) < need; };
        narrow = model::findReachable(fn, poll, tooNarrow, wide, acquires, acquires);
      }
      if (narrow < 0 || !reported.insert(siteKey(fn, narrow)).second) continue;
      auto d = makeDiagnostic(
          fn, narrow, "scope-too-narrow",
          fmt::format("acquire at {} scope for a flag that {} writes; it needs {} scope", scopeName(scopeOf(narrow)),
                      partnerOf(need), scopeName(need)),
          narrow == poll ? fmt::format("poll with ld.acquire{}", scopeName(need))
                         : fmt::format("use {} here", fenceSpelling(need)));
      d.fixRequest = widenScope(fn, narrow, scopeOf(narrow), need);
      if (narrow != poll) addNote(d, fn, poll, "the flag is polled here");
      InstId read = model::findReachable(fn, poll, guarded, kNever, reads, none);
      if (read >= 0) addWaitEvidence(d, ctx, poll, decidedReadAfter(ctx, poll, read, guarded, kNever, none));
      addScopeEvidence(d, ctx, narrow, poll);
      out.push_back(std::move(d));
    }
  }
}

// The signals whose release scope is judged: those a wait of this function
// observes, and the outbound ones (no wait here reads them: the host, another
// GPU or a later kernel) that the kernel itself raises at .sys
// (isSystemScopeSignal: an explicit .sys store or atomic, not a volatile one).
// That .sys is the signalling side's statement that a thread off this GPU
// reads the flag (../shared/ordering-rules.md, scope-too-narrow); an outbound
// flag raised at .gpu, or volatile, may be read by a later kernel on this GPU,
// which a .gpu release covers, and is not asked (session 27: `__threadfence();
// atomicExch_system(done, 1)` went unasked). A FIFO trigger raised at .sys is
// asked too; its reader may be a device (addSignalEvidence: `device-or-host`,
// undecided).
std::vector<InstId> scopeJudgedSignals(const ProtocolModel& ctx) {
  std::vector<InstId> judged = ctx.signals();
  for (InstId signal : ctx.outboundSignals())
    if (ctx.isSystemScopeSignal(signal)) judged.push_back(signal);
  return judged;
}

void checkReleaseSide(const ProtocolModel& ctx, std::set<std::string>& reported, Findings& out) {
  const FunctionModel& fn = ctx.function();
  for (InstId signal : scopeJudgedSignals(ctx)) {
    Scope need = ctx.requiredScope(signal);
    auto published = [&](InstId i) { return ctx.isPublishedWrite(i, signal); };
    auto scopeOf = [&](InstId i) { return ctx.scopeOf(i); };
    // The walks test only the candidates: the global writes and the release points.
    const std::vector<InstId>& writes = ctx.globalWrites();
    const std::vector<InstId>& releases = ctx.releasePoints();
    const std::vector<InstId> none;
    InstId narrow = -1;
    if (model::hasReleaseSemantics(fn.instructions[signal].effect)) {
      if (scopeOf(signal) < need && !model::findReachingBackward(fn, signal, published, kNever, writes, none).empty())
        narrow = signal;
    } else {
      auto anyRelease = [&](InstId i) { return ctx.releasesFor(i, signal); };
      auto wide = [&](InstId i) { return ctx.releasesFor(i, signal) && scopeOf(i) >= need; };
      if (!model::findReachingBackward(fn, signal, published, anyRelease, writes, releases).empty())
        continue;  // release-missing's
      if (model::findReachingBackward(fn, signal, published, wide, writes, releases).empty()) continue;
      auto tooNarrow = [&](InstId i) { return ctx.releasesFor(i, signal) && scopeOf(i) < need; };
      auto narrows = model::findReachingBackward(fn, signal, tooNarrow, wide, releases, releases);
      if (!narrows.empty()) narrow = narrows.front();
    }
    if (narrow < 0 || !reported.insert(siteKey(fn, narrow)).second) continue;
    auto d = makeDiagnostic(
        fn, narrow, "scope-too-narrow",
        fmt::format("release at {} scope before a signal that {} waits on; it needs {} scope",
                    scopeName(scopeOf(narrow)), partnerOf(need), scopeName(need)),
        narrow == signal ? fmt::format("signal with st.release{0} / atom.release{0}", scopeName(need))
                         : fmt::format("use {} here", fenceSpelling(need)));
    d.fixRequest = widenScope(fn, narrow, scopeOf(narrow), need);
    if (narrow != signal) addNote(d, fn, signal, "the signal the release should order the writes before");
    const std::vector<InstId> reaching = model::findReachingBackward(fn, signal, published, kNever, writes, none);
    if (!reaching.empty())
      addSignalEvidenceOfBestWrite(d, ctx, signal, reaching.front(), published, kNever, none, /*forScope=*/true);
    addScopeEvidence(d, ctx, narrow, signal);
    out.push_back(std::move(d));
  }
}

// Every `mapa` that defines the arrive's address (its operand 2 is the
// target rank), or nothing when some reaching definition is not a `mapa`.
std::optional<std::vector<InstId>> mapaDefinitions(const ProtocolModel& ctx, InstId arrive) {
  const auto& inst = ctx.function().instructions[arrive];
  if (inst.effect.address < 0) return std::nullopt;
  const ptx::Operand& address = inst.operands[inst.effect.address];
  if (address.kind != ptx::Operand::Kind::Address || address.base.kind != ptx::Operand::Kind::Register)
    return std::nullopt;
  std::vector<InstId> defs = ctx.function().values->reachingDefinitions(address.base.reg, arrive);
  if (defs.empty()) return std::nullopt;
  for (InstId d : defs)
    if (ctx.function().instructions[d].opcode() != "mapa") return std::nullopt;
  return defs;
}

// `mapa addr, %cluster_ctarank` names the executing CTA's own barrier: CUTLASS's
// pipelines send every arrive through the cluster form and pass their own rank
// when the barrier is local. Such an arrive needs only .cta scope.
bool targetsOwnCta(const ProtocolModel& ctx, InstId arrive) {
  auto mapas = mapaDefinitions(ctx, arrive);
  if (!mapas) return false;
  for (InstId mapa : *mapas)
    if (!ctx.function().values->isSpecialRegister(mapa, 2, "%cluster_ctarank")) return false;
  return true;
}

// `mapa addr, <constant>` in a kernel that declares no cluster size: with one
// CTA per cluster (a launch attribute, invisible in the PTX) the constant rank
// is the CTA itself. Not decidable: not reported. A declared size of one
// makes every arrive local.
bool mayBeOwnCta(const ProtocolModel& ctx, InstId arrive) {
  int64_t size = model::declaredClusterSize(ctx.function());
  if (size == 1) return true;
  if (size > 1) return false;
  auto mapas = mapaDefinitions(ctx, arrive);
  if (!mapas) return false;
  for (InstId mapa : *mapas)
    if (!ctx.function().values->constantOf(mapa, 2)) return false;
  return true;
}

void checkRemoteArrives(const ProtocolModel& ctx, std::set<std::string>& reported, Findings& out) {
  const FunctionModel& fn = ctx.function();
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    const auto& e = fn.instructions[i].effect;
    if (e.kind != model::EffectKind::MbarrierArrive || !e.isRemote || e.scope >= Scope::Cluster) continue;
    // tcgen05.commit's arrive is made when the committed tensor-core operations
    // complete; the instruction has no .sem/.scope to choose.
    if (e.proxy == model::Proxy::Async) continue;
    if (targetsOwnCta(ctx, i) || mayBeOwnCta(ctx, i)) continue;
    if (!reported.insert(siteKey(fn, i)).second) continue;
    auto d = makeDiagnostic(
        fn, i, "scope-too-narrow",
        fmt::format("mbarrier arrive on another CTA's barrier (.shared::cluster) releases at {} scope only",
                    scopeName(e.scope == Scope::None ? Scope::Cta : e.scope)),
        "use mbarrier.arrive.release.cluster.shared::cluster");
    d.fixRequest = widenScope(fn, i, e.scope, Scope::Cluster);
    d.evidence.push_back(report::link(fn, report::LinkKind::Ordering, i, "remote-arrive",
                                      "an arrive on a barrier of another CTA (.shared::cluster)"));
    d.evidence.push_back(report::link(fn, report::LinkKind::Partner, -1, "another-cta-of-the-cluster",
                                      "the barrier's address is mapped to another CTA's rank"));
    // An arrive.expect_tx announces bytes that a transaction (st.async,
    // a bulk copy with complete_tx) then delivers with its own completion:
    // the arrive's release publishes only the thread's earlier accesses,
    // which nothing relates to the waiter.
    if (std::any_of(fn.instructions[i].syntax->modifiers.begin(), fn.instructions[i].syntax->modifiers.end(),
                    [](std::string_view m) { return m.starts_with("expect_tx"); }))
      d.evidence.push_back(report::undecidedLink(
          fn, report::LinkKind::DataWrite, -1, "transaction-payload",
          "the arrive announces a transaction's bytes, which the transaction's completion delivers; no access of "
          "this thread before the arrive is related to the waiter"));
    else
      d.evidence.push_back(report::link(fn, report::LinkKind::DataWrite, -1, "arriving-thread-accesses",
                                        "the arrive releases this thread's accesses of the buffer the barrier "
                                        "guards (a consumer's reads before the peer refills it)"));
    out.push_back(std::move(d));
  }
}

}  // namespace

void checkScopeTooNarrow(const FunctionModel& fn, Findings& out) {
  const ProtocolModel& ctx = model::protocolOf(fn);
  std::set<std::string> reported;
  checkAcquireSide(ctx, reported, out);
  checkReleaseSide(ctx, reported, out);
  checkRemoteArrives(ctx, reported, out);
}

}  // namespace fenceline::checks
