// cluster-exit: a CTA of a cluster may exit while another CTA still reaches
// into its shared memory (issue 30's shape 13; SGLang #32954: a 2-CTA GEMM
// synchronized its cluster only at entry, and one CTA retired while its peer
// still arrived on its mbarriers). The PTX ISA ("Distributed shared memory"):
// the shared memory of a CTA that has exited is not accessible; a CTA must
// outlive every access of its peers, which the kernel ensures with a cluster
// barrier before the exit or with a wait on the barrier those accesses arrive
// on (CUTLASS's producer "load tail").
//
// The shape asked: CTA T hands something to CTA C with a remote arrive F
// (`mbarrier.arrive` through a `mapa` to another CTA); C waits on that barrier
// (W) and answers with a remote arrive A on a barrier of T: every path from
// the entry to A passes a wait on F's barrier (C waits before its first
// answer), while some path reaches F with no wait on A's barrier (T hands off
// first: it is the initiator). T must wait on A's barrier after its last F,
// or pass a cluster barrier, before it exits. Reported at A when:
//  - some path of F's thread from F to an exit passes no wait on the barrier
//    A (or a remote arrive after it) arrives on, and no cluster barrier
//    (`barrier.cluster`) is reachable from F or from A (a cluster barrier
//    anywhere after them may hold the cluster together: not asked);
//  - every wait on those barriers lies on a path with F (before it: T waits
//    there for the answers to earlier hand-offs; after it on some paths); a
//    wait in code exclusive of F may be another role of T's threads, which
//    would keep T alive: not asked.
// Whether C answers T's last hand-off at all depends on the two loops' trip
// counts (C may stop one iteration earlier, and then T has waited for every
// answer), which the analysis does not compare: the `answer-count` link is
// undecided and the finding is strict tier. When F and A are the only remote
// arrives on their barriers and neither is in a loop (one hand-off, one
// answer) the link is decided (`one-hand-off`). Which CTA A aims at is decided
// when the kernel declares two CTAs per cluster (F's thread is in the other
// CTA, the one A names); with more CTAs, or a size left to the launch, the
// `cluster-peer` link is undecided too.
// Remote loads and stores through `mapa` are not asked (only arrives: the
// answer that can be waited on); nor async arrivals (a multicast bulk copy's
// complete_tx, tcgen05.commit).
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "model/ClusterEvidence.h"
#include "model/HandOffs.h"
#include "model/Memory.h"
#include "model/Paths.h"

namespace fenceline::checks {

namespace {

using model::EffectKind;
using model::FunctionModel;
using model::InstId;
using model::Scope;

// An mbarrier arrive of the generic proxy through a `mapa` to another CTA (or
// one not known to be this CTA).
bool isRemoteArrive(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return e.kind == EffectKind::MbarrierArrive && e.proxy != model::Proxy::Async && e.address >= 0 &&
         model::handoff::isHandOffArrive(fn, i) && fn.memory->mappedToAnotherCta(i, e.address);
}

bool isClusterBarrier(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return (e.kind == EffectKind::CtaBarrier || e.kind == EffectKind::CtaBarrierArrive) && e.scope == Scope::Cluster;
}

bool isExit(const FunctionModel& fn, InstId i) { return fn.instructions[i].effect.kind == EffectKind::Exit; }

// The wait and the arrive name one barrier (another CTA's copy of it counts:
// every CTA runs the same code).
bool sameBarrier(const FunctionModel& fn, InstId wait, InstId arrive) {
  const auto &ew = fn.instructions[wait].effect, &ea = fn.instructions[arrive].effect;
  return fn.memory->aliasEvidence(wait, ew.address, 0, arrive, ea.address, 0, /*barriers=*/true, false).result !=
         model::AliasResult::No;
}

// Every path from the entry to `i` passes a wait on the barrier `arrive`
// arrives on: `i` follows such a wait on every execution (the responder of a
// hand-off waits before its first answer).
bool alwaysAfterWaitOn(const FunctionModel& fn, InstId i, InstId arrive, const std::vector<InstId>& waits) {
  auto waitOn = [&](InstId w) {
    return fn.instructions[w].effect.kind == EffectKind::MbarrierWait && sameBarrier(fn, w, arrive);
  };
  const InstId first = fn.blocks[0].first;
  if (first == i) return false;
  if (waitOn(first)) return true;
  return model::everyPathPasses(fn, first, i, waitOn, waits);
}

struct Hazard {
  InstId answer = -1, handOff = -1, wait = -1, exitPath = -1;
  bool once = false;  // the only remote arrive on each of the two barriers, neither in a loop
};

report::Diagnostic render(const FunctionModel& fn, const Hazard& h, int64_t clusterSize) {
  auto d = protocol::makeDiagnostic(
      fn, h.answer, "cluster-exit",
      "remote mbarrier arrive on another CTA's barrier: that CTA may have exited (it waits for no answer after its "
      "last hand-off), and the shared memory of an exited CTA is not accessible",
      "end the kernel with a cluster barrier on every path (barrier.cluster.arrive + barrier.cluster.wait; "
      "cute::cluster_sync()), or have the CTA that hands off wait on this barrier's phase for its last hand-off "
      "before it exits (CUTLASS's producer tail)");
  d.fixRequest = noMachineFix("the fix is a cluster barrier before the exit of every CTA, or a drain of the "
                              "answers' phases: not a one-line insertion at this arrive");
  protocol::addNote(d, fn, h.handOff, "the other CTA hands off here (a remote arrive on this CTA's barrier)");
  protocol::addNote(d, fn, h.wait, "this CTA waits on that hand-off here, then answers");
  protocol::addNote(d, fn, h.exitPath, "the CTA that handed off exits here with no wait for the answer");
  d.evidence.push_back(report::link(fn, report::LinkKind::Access, h.answer, "remote-arrive",
                                    "an arrive through a mapa on another CTA's barrier (distributed shared memory)"));
  d.evidence.push_back(report::link(fn, report::LinkKind::HandOff, h.handOff, "remote-hand-off",
                                    "the other CTA's arrive on the barrier this CTA waits on before it answers"));
  d.evidence.push_back(report::link(fn, report::LinkKind::Use, h.exitPath, "exit-without-wait",
                                    "a path of the handing-off thread from its hand-off to the kernel's exit passes "
                                    "no wait on the answer's barrier and no cluster barrier"));
  if (clusterSize == 2)
    d.evidence.push_back(report::link(fn, report::LinkKind::Partner, -1, "cluster-peer",
                                      "the kernel declares two CTAs per cluster: the CTA that handed off is the one "
                                      "the answer aims at"));
  else
    d.evidence.push_back(report::undecidedLink(
        fn, report::LinkKind::Partner, -1, "cluster-peer",
        "the cluster may have more than two CTAs: the CTA that handed off is not shown to be the one the answer "
        "aims at"));
  // One hand-off and one answer: the answer follows the hand-off's
  // completion, and nothing waits for it.
  if (h.once)
    d.evidence.push_back(report::link(fn, report::LinkKind::Partner, -1, "one-hand-off",
                                      "the hand-off and its answer each run once (neither is in a loop), and the "
                                      "CTA that hands off never waits on the answer's barrier"));
  else
    d.evidence.push_back(report::undecidedLink(
        fn, report::LinkKind::Partner, -1, "answer-count",
        "the CTA that hands off waits for the answers to its earlier hand-offs only; whether this CTA answers its "
        "last one depends on the two loops' trip counts, which the analysis does not compare"));
  return d;
}

}  // namespace

void checkClusterExit(const FunctionModel& fn, Findings& out) {
  if (!fn.memory || model::clusterCtas(fn) == model::ClusterCtas::One) return;
  std::vector<InstId> remoteArrives, waits, clusterBarriers;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (isRemoteArrive(fn, i)) remoteArrives.push_back(i);
    else if (fn.instructions[i].effect.kind == EffectKind::MbarrierWait) waits.push_back(i);
    else if (isClusterBarrier(fn, i)) clusterBarriers.push_back(i);
  }
  if (remoteArrives.size() < 2 || waits.empty()) return;
  const int64_t clusterSize = model::declaredClusterSize(fn);
  if (clusterSize == 1) return;
  auto clusterBarrierAfter = [&](InstId from) {
    return std::any_of(clusterBarriers.begin(), clusterBarriers.end(),
                       [&](InstId b) { return model::reachable(fn, from, b); });
  };
  std::set<std::string> reported;
  for (InstId a : remoteArrives) {
    if (clusterBarrierAfter(a)) continue;
    // The barriers the answer side arrives on from A on: A's, and those of
    // remote arrives after it.
    std::vector<InstId> answers_{a};
    for (InstId r : remoteArrives)
      if (r != a && model::reachable(fn, a, r)) answers_.push_back(r);
    auto waitsForAnswer = [&](InstId i) {
      if (fn.instructions[i].effect.kind != EffectKind::MbarrierWait) return false;
      return std::any_of(answers_.begin(), answers_.end(), [&](InstId r) { return sameBarrier(fn, i, r); });
    };
    std::optional<Hazard> found;
    for (InstId f : remoteArrives) {
      if (f == a || model::reachable(fn, a, f) || model::reachable(fn, f, a)) continue;  // one thread's own
      // A answers F: every execution of A follows a wait on F's barrier. F
      // is the initiator's: T's first hand-off needs no answer (some path
      // reaches F with no wait on A's barrier). A hand-off that always follows
      // a wait on the other side's arrives is itself an answer (the
      // responder's own, whose last one gets no reply): not asked.
      if (clusterBarrierAfter(f) || !alwaysAfterWaitOn(fn, a, f, waits) || alwaysAfterWaitOn(fn, f, a, waits))
        continue;
      // A wait on the answer in code exclusive of F (neither reaches the
      // other) may be another role of T's threads, which keeps T alive.
      bool elsewhere = false;
      for (InstId w : waits)
        if (waitsForAnswer(w) && !model::reachable(fn, f, w) && !model::reachable(fn, w, f)) elsewhere = true;
      if (elsewhere) continue;
      const InstId exit = model::findReachable(fn, f, [&](InstId i) { return isExit(fn, i); }, waitsForAnswer);
      if (exit < 0) continue;
      InstId wait = -1;
      for (InstId w : waits)
        if (sameBarrier(fn, w, f) && model::reachable(fn, w, a)) wait = w;
      auto onlyOne = [&](InstId x) {
        if (fn.loopOf[fn.blockOf[x]] >= 0) return false;
        for (InstId r : remoteArrives)
          if (r != x && sameBarrier(fn, x, r)) return false;
        return true;
      };
      found = Hazard{a, f, wait, exit, onlyOne(a) && onlyOne(f)};
      break;
    }
    if (found && reported.insert(protocol::siteKey(fn, a)).second) out.push_back(render(fn, *found, clusterSize));
  }
}

}  // namespace fenceline::checks
