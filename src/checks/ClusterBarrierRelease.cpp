// release-missing, cluster barriers: shared-memory writes that another CTA of
// the cluster reads through distributed shared memory after a cluster barrier
// are published by the barrier only when its arrive releases them. The PTX
// ISA (barrier.cluster): `barrier.cluster.arrive` has .release semantics by
// default, and "the optional .relaxed qualifier on barrier.cluster.arrive
// specifies that there are no memory ordering and visibility guarantees
// provided for the memory accesses performed prior to barrier.cluster.arrive";
// `barrier.cluster.wait` acquires. A relaxed arrive is an execution
// rendezvous: the writes before it need a release of their own (a fence at
// .cluster scope or wider) before it, or a later release arrive before the
// read (SGLang #38829: rank 0 wrote a threshold into its shared memory, the
// other CTAs read it after `arrive.relaxed` + `wait`).
//
// Reported at the relaxed arrive A when a shared-memory write W reaches A on
// a path with no cluster release, a read R of shared memory (a load, or the
// read of an atomic) follows A with a cluster wait on every path from A to R
// and no cluster release on some path, one of W and R goes through a `mapa`
// to another CTA, and R may read W's bytes in the partner CTA (the kernel's
// other CTAs run the same code: another CTA's copy of the same object is what
// a mapa'd address names; MemoryAnalysis::aliasEvidence with `barriers`).
// The pair's link decides the tier. Writes and reads of one CTA, and writes
// with no cluster barrier on the way to the read, are other questions.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/Protocol.h"

namespace fenceline::checks {

namespace {

using model::EffectKind;
using model::FunctionModel;
using model::InstId;
using model::Scope;

bool isClusterArrive(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return e.kind == EffectKind::CtaBarrierArrive && e.scope == Scope::Cluster;
}

bool isClusterWait(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return e.kind == EffectKind::CtaBarrier && e.scope == Scope::Cluster;
}

// A release that covers another CTA of the cluster: a cluster arrive with its
// default .release semantics, or a release fence at .cluster scope or wider.
bool isClusterRelease(const FunctionModel& fn, InstId i) {
  if (isClusterArrive(fn, i)) return model::hasReleaseSemantics(fn.instructions[i].effect);
  if (!model::isReleaseFence(fn, i)) return false;
  const Scope s = model::protocolOf(fn).scopeOf(i);
  return s == Scope::Cluster || s == Scope::Gpu || s == Scope::Sys;
}

bool isSharedWrite(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return e.writes && e.address >= 0 && model::isSharedSpace(e.space) &&
         (e.kind == EffectKind::Store || e.kind == EffectKind::ReadModifyWrite);
}

bool isSharedRead(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return e.reads && e.address >= 0 && model::isSharedSpace(e.space) &&
         (e.kind == EffectKind::Load || e.kind == EffectKind::ReadModifyWrite);
}

bool remote(const FunctionModel& fn, InstId i) {
  return fn.memory->mappedToAnotherCta(i, fn.instructions[i].effect.address);
}

struct Pair {
  InstId write = -1, read = -1;
  model::AliasEvidence same;
};

// The pair to show for arrive `a`: a decided one when there is one.
std::optional<Pair> unreleasedPair(const FunctionModel& fn, InstId a, const std::vector<InstId>& writes,
                                   const std::vector<InstId>& reads) {
  auto release = [&](InstId i) { return isClusterRelease(fn, i); };
  auto wait = [&](InstId i) { return isClusterWait(fn, i); };
  std::vector<InstId> before, after;
  for (InstId w : writes)
    if (model::reachable(fn, w, a) && !model::everyPathPasses(fn, w, a, release)) before.push_back(w);
  if (before.empty()) return std::nullopt;
  for (InstId r : reads)
    if (model::reachable(fn, a, r) && model::everyPathPasses(fn, a, r, wait) &&
        !model::everyPathPasses(fn, a, r, release))
      after.push_back(r);
  std::optional<Pair> best;
  for (InstId r : after) {
    for (InstId w : before) {
      if (remote(fn, w) == remote(fn, r)) continue;  // one CTA's own accesses: not this question
      const auto& ew = fn.instructions[w].effect;
      const auto& er = fn.instructions[r].effect;
      model::AliasEvidence e = fn.memory->aliasEvidence(w, ew.address, 0, r, er.address, 0, /*barriers=*/true);
      if (e.result == model::AliasResult::No) continue;
      if (!best || (e.decided && !best->same.decided)) best = Pair{w, r, e};
      if (best->same.decided) return best;
    }
  }
  return best;
}

report::Diagnostic render(const FunctionModel& fn, InstId arrive, const Pair& p) {
  auto d = protocol::makeDiagnostic(
      fn, arrive, "release-missing",
      "cluster barrier arrive is .relaxed: shared-memory writes before it are not released to the other CTAs "
      "of the cluster, which access them after the barrier",
      "arrive with release semantics (barrier.cluster.arrive without .relaxed; cute::cluster_arrive(), "
      "cooperative_groups::this_cluster().sync()), or execute fence.acq_rel.cluster after the writes and before "
      "this arrive (after the __syncthreads() that gathers the writers, when there is one)");
  // Machine fix: fence.acq_rel.cluster on the arrive's line, before it; the arriving thread
  // executes it after the __syncthreads() that gathers the writers, when there is one
  // (cumulativity covers the writes the barrier ordered before it).
  d.fixRequest = insertBefore(fn, arrive, report::FenceToInsert::AcquireRelease, scopeWord(Scope::Cluster));
  d.fixRequest.beforeHelperCall = true;
  d.fixRequest.after.push_back(report::locationOf(fn, p.write));
  protocol::addNote(d, fn, p.write, "this shared-memory write reaches the relaxed arrive with no release");
  protocol::addNote(d, fn, p.read,
                    remote(fn, p.read) ? "another CTA of the cluster reads it here, after the cluster wait"
                                       : "written here in another CTA's shared memory, read after the cluster wait");
  d.evidence.push_back(report::link(fn, report::LinkKind::DataWrite, p.write, "before-the-signal"));
  d.evidence.push_back(report::link(fn, report::LinkKind::Signal, arrive, "relaxed-cluster-arrive",
                                    "barrier.cluster.arrive.relaxed orders no memory access before it"));
  d.evidence.push_back(report::link(fn, report::LinkKind::GuardedRead, p.read, p.same.how, p.same.detail,
                                    p.same.decided));
  d.evidence.push_back(report::link(fn, report::LinkKind::Partner, p.read, "cluster-peer",
                                    "another CTA of the cluster runs the same code (mapa names its shared memory)"));
  return d;
}

}  // namespace

void checkClusterBarrierRelease(const FunctionModel& fn, Findings& out) {
  if (!fn.memory) return;
  std::vector<InstId> arrives, writes, reads;
  bool anyRemote = false;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (isClusterArrive(fn, i) && !model::hasReleaseSemantics(fn.instructions[i].effect)) arrives.push_back(i);
    const bool w = isSharedWrite(fn, i), r = isSharedRead(fn, i);
    if (w) writes.push_back(i);
    if (r) reads.push_back(i);
    if ((w || r) && remote(fn, i)) anyRemote = true;
  }
  if (arrives.empty() || !anyRemote) return;
  std::set<std::string> reported;
  for (InstId a : arrives) {
    std::optional<Pair> p = unreleasedPair(fn, a, writes, reads);
    if (p && reported.insert(protocol::siteKey(fn, a)).second) out.push_back(render(fn, a, *p));
  }
}

}  // namespace fenceline::checks
