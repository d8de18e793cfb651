// slot-reuse: a shared-memory record handed to other threads through an
// mbarrier ("ready"/"full") is written again before those threads are done
// reading the previous value (issue 30's shape 14; cuda-oxide #1066: the
// scheduler warp rewrote the tile record every tile, the workers waited on a
// "ready" barrier and read it, and no "empty" barrier told the scheduler they
// had read it).
//
// The PTX memory model orders a reader's read R before the writer's next write
// W2 of the same bytes only through a release/acquire pattern from the reader
// to the writer (MCM "Causality order"): the reader arrives on a barrier after
// R (mbarrier.arrive releases the arriving thread's prior accesses) and the
// writer waits on it before W2. proxy-war and bulk-store-reuse ask this for
// async-proxy rewrites; this check asks it for generic stores.
//
// Reported at the rewrite W2 when:
//  - W2 is a generic store to shared memory of this CTA that follows a hand-off
//    arrive A (an mbarrier arrive), and nothing that could make the writer wait
//    for another thread lies on any way from A to W2 (model/PathsBetween.h):
//    no mbarrier wait, no bar.sync or named/cluster barrier, no strong load or
//    read-modify-write (a flag poll), no call that was not inlined, and no
//    bar.warp.sync unless the readers are decidedly in other warps (a wait
//    that some path skips, `if (t > 0) wait(empty)`, counts as a wait); a
//    write of the same bytes reaches A (the value A publishes);
//  - another thread set waits on A's barrier (an mbarrier wait that names the
//    same barrier word, MemoryAnalysis::aliasEvidence with `barriers`) and then
//    reads bytes W2 writes (R) before any other acquisition of its own (another
//    wait, a barrier, a poll: past one, R may read what another hand-off
//    published, a named barrier the writer arrives on after W2);
//  - R and W2 lie in exclusive code (neither reaches the other in the CFG: two
//    roles of a warp-specialized kernel; no thread runs both).
// The bytes link decides the tier: one record at decided offsets is default,
// "one buffer at offsets not provably apart" is strict.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "model/GuardedRanges.h"
#include "model/HandOffs.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/PathsBetween.h"

namespace fenceline::checks {

namespace {

using model::EffectKind;
using model::FunctionModel;
using model::InstId;
using model::Semantics;

// A generic store to this CTA's shared memory (not through a mapa to another CTA).
bool isLocalSharedStore(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return e.kind == EffectKind::Store && e.address >= 0 && model::handoff::isGenericSharedWrite(fn, i) &&
         !fn.memory->mappedToAnotherCta(i, e.address);
}

bool isLocalSharedLoad(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return e.kind == EffectKind::Load && e.address >= 0 && model::handoff::isGenericSharedAccess(fn, i) &&
         !fn.memory->mappedToAnotherCta(i, e.address);
}

// An instruction at which the writer could wait for (acquire from) another
// thread. bar.warp.sync only when the readers may share the writer's warp.
bool mayWaitForOthers(const FunctionModel& fn, InstId i, bool warpSyncCounts) {
  const auto& e = fn.instructions[i].effect;
  if (e.kind == EffectKind::Call) return model::isOpaqueCall(fn, i);
  switch (e.kind) {
    case EffectKind::MbarrierWait:
    case EffectKind::CtaBarrier:
    case EffectKind::Unknown:
    case EffectKind::GridDependencyWait:
      return true;
    case EffectKind::WarpSync:
      return warpSyncCounts;
    case EffectKind::Load:
    case EffectKind::ReadModifyWrite:
      return e.semantics != Semantics::Weak && e.semantics != Semantics::None;
    default:
      return false;
  }
}

// The warps of the two instructions' threads (their %tid.x ranges, narrowed by
// their guards) never meet.
bool inOtherWarps(const FunctionModel& fn, InstId a, InstId b) {
  constexpr std::pair<int64_t, int64_t> kAny{0, 1023};
  const auto ra = model::guardedRange(fn, a, "%tid.x", kAny), rb = model::guardedRange(fn, b, "%tid.x", kAny);
  return ra.second / 32 < rb.first / 32 || rb.second / 32 < ra.first / 32;
}

struct Hazard {
  InstId rewrite = -1, arrive = -1, wait = -1, read = -1;
  model::AliasEvidence bytes, barrier;
};

report::Diagnostic render(const FunctionModel& fn, const Hazard& h) {
  auto d = protocol::makeDiagnostic(
      fn, h.rewrite, "slot-reuse",
      "shared-memory record is written again while threads that waited on its mbarrier may still read the "
      "previous value: nothing tells the writer they are done",
      "give the record an \"empty\" mbarrier: every reading thread (or one per warp after __syncwarp()) arrives "
      "on it after its last read, and the writer waits on it (phase of the previous round) before this write, "
      "as CUTLASS's PipelineAsync does for reusable slots");
  d.fixRequest = noMachineFix("the fix needs a new mbarrier (init, the readers' arrive, the writer's wait with "
                              "its phase): not a one-line insertion");
  protocol::addNote(d, fn, h.arrive, "the previous value was published by this arrive");
  protocol::addNote(d, fn, h.wait, "other threads wait on that barrier here");
  protocol::addNote(d, fn, h.read, "and read the record here, unordered with the rewrite");
  d.evidence.push_back(report::link(fn, report::LinkKind::Access, h.rewrite, "rewrite",
                                    "no wait of the writer on any other thread lies between the arrive and it"));
  d.evidence.push_back(report::link(fn, report::LinkKind::HandOff, h.arrive, "mbarrier"));
  d.evidence.push_back(report::link(fn, report::LinkKind::Use, h.wait, h.barrier.how, h.barrier.detail,
                                    h.barrier.same()));
  d.evidence.push_back(report::link(fn, report::LinkKind::GuardedRead, h.read, h.bytes.how, h.bytes.detail,
                                    h.bytes.sameBytes()));
  d.evidence.push_back(report::link(fn, report::LinkKind::Partner, h.read, "exclusive-branches",
                                    "the read and the rewrite lie in code no one thread runs both of"));
  return d;
}

// Where a reader's thread could acquire from someone else after its wait:
// another mbarrier wait, a barrier (a named bar.sync pairs with a bar.arrive
// the writer may execute after its rewrite), a strong load or read-modify-write,
// a call that was not inlined. A read past one of them may read what that
// other hand-off published, not the value of the arrive the wait observed.
bool readerAcquires(const FunctionModel& fn, InstId i, InstId wait) {
  if (i == wait) return false;  // the wait's own spin loop
  return mayWaitForOthers(fn, i, false);
}

// The loads of shared memory a wait guards: reached from it with no other
// acquisition on the way. Kept per wait.
class GuardedLoads {
 public:
  GuardedLoads(const FunctionModel& fn, const std::vector<InstId>& loads) : fn_(fn), isLoad_(fn.instructions.size(), 0) {
    for (InstId l : loads) isLoad_[l] = 1;
  }
  const std::vector<InstId>& of(InstId wait) {
    auto [it, inserted] = cache_.try_emplace(wait);
    if (!inserted) return it->second;
    std::vector<InstId>& found = it->second;
    auto never = [](InstId) { return false; };
    model::findAllReachable(fn_, wait, never, [&](InstId i) {
      if (readerAcquires(fn_, i, wait)) return true;
      if (isLoad_[i]) found.push_back(i);
      return false;
    });
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    return found;
  }

 private:
  const FunctionModel& fn_;
  std::vector<char> isLoad_;
  std::map<InstId, std::vector<InstId>> cache_;
};

// The best reader of `rewrite`'s bytes among those that wait on `arrive`'s
// barrier and read before any other acquisition: a decided one when there is one.
std::optional<Hazard> reader(const FunctionModel& fn, InstId arrive, InstId rewrite, bool warpSyncPassed,
                             const std::vector<InstId>& waits, GuardedLoads& guarded) {
  std::optional<Hazard> best;
  const auto& ea = fn.instructions[arrive].effect;
  const auto& ew = fn.instructions[rewrite].effect;
  for (InstId v : waits) {
    const auto& ev = fn.instructions[v].effect;
    model::AliasEvidence barrier = fn.memory->aliasEvidence(v, ev.address, 0, arrive, ea.address, 0, true);
    if (!barrier.same()) continue;
    for (InstId r : guarded.of(v)) {
      if (model::reachable(fn, rewrite, r) || model::reachable(fn, r, rewrite)) continue;  // one thread may run both
      if (warpSyncPassed && !inOtherWarps(fn, arrive, r)) continue;
      const auto& er = fn.instructions[r].effect;
      model::AliasEvidence bytes = fn.memory->aliasEvidence(rewrite, ew.address, 0, r, er.address, 0, false);
      if (bytes.result == model::AliasResult::No) continue;
      if (!best || (bytes.sameBytes() && !best->bytes.sameBytes()))
        best = Hazard{rewrite, arrive, v, r, bytes, barrier};
      if (best->bytes.sameBytes()) return best;
    }
  }
  return best;
}

}  // namespace

void checkSlotReuse(const FunctionModel& fn, Findings& out) {
  if (!fn.memory) return;
  std::vector<InstId> stores, loads, arrives, barrierWaits;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (model::handoff::isHandOffArrive(fn, i)) arrives.push_back(i);
    else if (model::handoff::isMbarrierWait(fn, i)) barrierWaits.push_back(i);
    else if (isLocalSharedStore(fn, i)) stores.push_back(i);
    else if (isLocalSharedLoad(fn, i)) loads.push_back(i);
  }
  if (stores.empty() || loads.empty() || arrives.empty() || barrierWaits.empty()) return;
  std::vector<char> storeMark(fn.instructions.size(), 0);
  for (InstId w : stores) storeMark[w] = 1;
  auto isStore = [&](InstId i) { return storeMark[i] != 0; };
  GuardedLoads guarded(fn, loads);
  std::set<std::string> reported;
  for (InstId a : arrives) {
    // The writes that follow the arrive on a path with no wait of the writer
    // on anyone (bar.warp.sync aside: whether it counts depends on the readers).
    constexpr size_t kNearest = 16;
    auto candidates = model::findAllReachable(
        fn, a, isStore, [&](InstId i) { return mayWaitForOthers(fn, i, false); }, kNearest);
    for (InstId w2 : candidates) {
      const auto& ew = fn.instructions[w2].effect;
      // The value `a` publishes: a write of the same bytes before it.
      bool published = false;
      for (InstId w1 : stores) {
        if (!model::reachable(fn, w1, a)) continue;
        const auto& e1 = fn.instructions[w1].effect;
        if (fn.memory->aliasEvidence(w1, e1.address, 0, w2, ew.address, 0, false, false).result !=
            model::AliasResult::No) {
          published = true;
          break;
        }
      }
      if (!published) continue;
      // No wait of the writer on any way from the arrive to the rewrite: one
      // that some path skips (`if (t > 0) wait(empty)`) still counts.
      const std::vector<char> between = model::instructionsBetween(fn, a, w2);
      bool writerWaits = false, warpSync = false;
      for (InstId i = 0; i < static_cast<InstId>(between.size()) && !writerWaits; ++i) {
        if (!between[i]) continue;
        writerWaits = mayWaitForOthers(fn, i, false);
        warpSync |= fn.instructions[i].effect.kind == EffectKind::WarpSync;
      }
      if (writerWaits) continue;
      std::optional<Hazard> h = reader(fn, a, w2, warpSync, barrierWaits, guarded);
      if (!h) continue;
      if (reported.insert(protocol::siteKey(fn, w2)).second) out.push_back(render(fn, *h));
      break;  // one rewrite per arrive: the nearest (a record's other fields are the same finding)
    }
  }
}

}  // namespace fenceline::checks
