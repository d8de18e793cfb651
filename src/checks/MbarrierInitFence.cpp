// mbarrier-init-fence: `mbarrier.init` is a generic-proxy write by one
// thread. Before the async proxy completes a transaction on the barrier (a
// TMA / bulk copy's complete_tx, tcgen05.commit) or a thread of another CTA
// of the cluster arrives on it (remote arrive, multicast completion), the
// initializing thread must make the init visible to them:
// `fence.mbarrier_init.release.cluster` (CUTLASS fence_barrier_init()), then
// the barrier (bar.sync, cluster barrier) that publishes it. Also accepted,
// per use: for same-CTA async-proxy uses a fence.proxy.async covering shared
// memory (CUTLASS fence_view_async_shared()); for remote generic arrives a
// release at .cluster scope or wider (a fence, or barrier.cluster.arrive
// without .relaxed); for remote async-proxy uses both.
//
// Reported at the init when some path from it to such a use passes none of
// the accepted fences executed by the initializing thread. Barriers used
// only by generic-proxy threads of the same CTA (after bar.sync) need no
// fence and are never reported.
//
// A multicast or a `.shared::cluster` arrive reaches another CTA only in a
// cluster of several. Where the kernel shows no cluster (model/
// ClusterEvidence.h) the use by other CTAs is not decided: strict tier
// (`no-cluster-evidence`). Where it declares one CTA per cluster a multicast
// completes on its own barrier only (a CTA-local async use) and an arrive is
// its own.
#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "checks/ProxyCommon.h"
#include "model/ClusterEvidence.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/Values.h"

namespace fenceline::checks {

namespace {

using model::EffectKind;
using model::FunctionModel;
using model::InstId;
using model::Scope;

enum class Use { AsyncLocal, Remote, RemoteAsync };

struct BarrierUse {
  InstId inst = -1;
  int operand = -1;  // the mbarrier operand
  Use use = Use::AsyncLocal;
};

// .multicast::cluster (bulk copies, tcgen05.commit), .multicast::cluster::all (try_cancel).
bool multicasts(const FunctionModel& fn, InstId i) {
  for (const auto& m : fn.instructions[i].syntax->modifiers)
    if (m.starts_with("multicast::cluster")) return true;
  return false;
}

// How `i` uses an mbarrier beyond the generic proxy of its own CTA, if it does.
std::optional<BarrierUse> barrierUse(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  if (e.kind == EffectKind::AsyncCopy && e.proxy == model::Proxy::Async && e.mbarrier >= 0)
    return BarrierUse{i, e.mbarrier, multicasts(fn, i) ? Use::RemoteAsync : Use::AsyncLocal};
  if (e.kind == EffectKind::MbarrierArrive && e.proxy == model::Proxy::Async && e.address >= 0)  // tcgen05.commit
    return BarrierUse{i, e.address, multicasts(fn, i) ? Use::RemoteAsync : Use::AsyncLocal};
  if ((e.kind == EffectKind::MbarrierArrive || e.kind == EffectKind::MbarrierExpectTx) && e.isRemote &&
      e.address >= 0)
    return BarrierUse{i, e.address, Use::Remote};
  return std::nullopt;
}

// A release at .cluster scope or wider: a fence, or a cluster barrier arrive
// with its default .release semantics (not barrier.cluster.arrive.relaxed,
// which is why CUTLASS pairs that one with fence_barrier_init()).
bool isClusterRelease(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  if (e.kind == EffectKind::CtaBarrierArrive && e.scope == Scope::Cluster)
    return model::hasReleaseSemantics(e);
  if (!model::isReleaseFence(fn, i)) return false;
  Scope s = model::protocolOf(fn).scopeOf(i);
  return s == Scope::Cluster || s == Scope::Gpu || s == Scope::Sys;
}

bool isInitFence(const FunctionModel& fn, InstId i) {
  return fn.instructions[i].effect.kind == EffectKind::MbarrierInitFence;
}

// Every path from the init to the use passes a fence of the kind the use
// needs, executed by the initializing thread.
bool fenced(const FunctionModel& fn, InstId init, const BarrierUse& u) {
  auto by = [&](auto&& pred) {
    return [&, pred](InstId i) { return pred(i) && proxy::fenceCoversThreadsOf(fn, i, init); };
  };
  auto initFence = by([&](InstId i) { return isInitFence(fn, i); });
  auto proxyFence = by([&](InstId i) { return isInitFence(fn, i) || proxy::isSharedProxyFence(fn, i); });
  auto release = by([&](InstId i) { return isInitFence(fn, i) || isClusterRelease(fn, i); });
  switch (u.use) {
    case Use::AsyncLocal: return model::everyPathPasses(fn, init, u.inst, proxyFence);
    case Use::Remote: return model::everyPathPasses(fn, init, u.inst, release);
    case Use::RemoteAsync:
      return model::everyPathPasses(fn, init, u.inst, initFence) ||
             (model::everyPathPasses(fn, init, u.inst, proxyFence) && model::everyPathPasses(fn, init, u.inst, release));
  }
  return true;
}

std::string_view whoUses(Use u) {
  switch (u) {
    case Use::AsyncLocal: return "the async proxy completes transactions on it here";
    case Use::Remote: return "a thread of another CTA of the cluster arrives on it here";
    case Use::RemoteAsync: return "the async proxy completes on it for several CTAs of the cluster here (multicast)";
  }
  return {};
}

// With one CTA per cluster: a multicast completes on the CTA's own barrier,
// and a `.shared::cluster` arrive is the CTA's own generic arrive (no use).
std::optional<BarrierUse> inOneCtaCluster(BarrierUse u) {
  if (u.use == Use::Remote) return std::nullopt;
  u.use = Use::AsyncLocal;
  return u;
}

report::Diagnostic render(const FunctionModel& fn, InstId init, const BarrierUse& u,
                          model::ClusterCtas cluster) {
  auto d = protocol::makeDiagnostic(
      fn, init, "mbarrier-init-fence",
      fmt::format("this mbarrier.init is not made visible to the {} before it uses the barrier; no "
                  "fence.mbarrier_init.release.cluster follows it",
                  u.use == Use::Remote ? "other CTAs of the cluster" : "async proxy"),
      "after the init, the initializing thread executes fence.mbarrier_init.release.cluster (CUTLASS "
      "cutlass::arch::fence_barrier_init(), cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, "
      "cuda::ptx::scope_cluster)), then a barrier publishes it (__syncthreads(), or cluster arrive/wait for "
      "other CTAs)");
  protocol::addNote(d, fn, u.inst, std::string(whoUses(u.use)));
  // The fix: fence.mbarrier_init.release.cluster right after the init, executed by the initializing
  // thread before the barrier that publishes it; once after a loop of inits (for s in stages:
  // init(&full[s])) when the use is outside that loop.
  const int32_t loop = fn.loopOf[fn.blockOf[init]];
  const bool afterLoop =
      loop >= 0 && !std::binary_search(fn.loops[loop].blocks.begin(), fn.loops[loop].blocks.end(), fn.blockOf[u.inst]);
  d.fixRequest = afterLoop ? insertAfterLoop(fn, init, report::FenceToInsert::MbarrierInitFence, "")
                           : insertAfter(fn, init, report::FenceToInsert::MbarrierInitFence);
  d.fixRequest.beforeHelperCall = true;
  d.fixRequest.before.push_back(report::locationOf(fn, u.inst));
  d.evidence.push_back(report::link(fn, report::LinkKind::Barrier, init, "mbarrier.init"));
  model::AliasEvidence same =
      fn.memory->aliasEvidence(init, fn.instructions[init].effect.address, 0, u.inst, u.operand, 0,
                               /*barriers=*/true);
  if (same.decided && u.use != Use::AsyncLocal && cluster == model::ClusterCtas::Unknown)
    d.evidence.push_back(report::link(
        fn, report::LinkKind::Use, u.inst, "no-cluster-evidence",
        "the kernel declares no cluster and reads no position in one (%cluster_ctarank, %cluster_ctaid), maps no "
        "address (mapa), has no cluster barrier and no CTA-pair operation: with one CTA per cluster this reaches "
        "only the CTA's own barrier",
        false));
  else
    d.evidence.push_back(report::link(fn, report::LinkKind::Use, u.inst,
                                      same.decided ? std::string(u.use == Use::AsyncLocal ? "async-proxy" : "remote")
                                                   : "barrier-" + same.how,
                                      same.detail, same.decided));
  // Within one CTA the field disagrees (ordering-rules.md, "mbarrier init").
  if (u.use == Use::AsyncLocal)
    d.disputed =
        "the barrier is used inside one CTA only; the CUDA Programming Guide fences after the init in its TMA "
        "example, while compiler teams (Triton, TLX) state no fence is needed for a CTA-local barrier";
  return d;
}

}  // namespace

void checkMbarrierInitFence(const model::FunctionModel& fn, Findings& out) {
  if (!fn.memory) return;
  std::vector<InstId> inits;
  std::vector<BarrierUse> uses;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (fn.instructions[i].effect.kind == EffectKind::MbarrierInit && fn.instructions[i].effect.address >= 0)
      inits.push_back(i);
    else if (auto u = barrierUse(fn, i)) uses.push_back(*u);
  }
  if (inits.empty()) return;
  const model::ClusterCtas cluster = model::clusterCtas(fn);
  if (cluster == model::ClusterCtas::One) {
    std::vector<BarrierUse> own;
    for (const BarrierUse& u : uses)
      if (auto o = inOneCtaCluster(u)) own.push_back(*o);
    uses = std::move(own);
  }
  std::map<std::string, bool> reported;
  for (InstId init : inits) {
    const int address = fn.instructions[init].effect.address;
    // The use to report: one by another CTA of the cluster when there is one
    // (a warning), else a CTA-local async-proxy use (disputed: strict tier).
    const BarrierUse* found = nullptr;
    for (const BarrierUse& u : uses) {
      if (fn.memory->alias(init, address, u.inst, u.operand) == model::AliasResult::No) continue;
      if (!model::reachable(fn, init, u.inst) || fenced(fn, init, u)) continue;
      if (!found || (found->use == Use::AsyncLocal && u.use != Use::AsyncLocal)) found = &u;
      if (found->use != Use::AsyncLocal) break;
    }
    if (found && reported.try_emplace(protocol::siteKey(fn, init), true).second) out.push_back(render(fn, init, *found, cluster));
  }
}

}  // namespace fenceline::checks
