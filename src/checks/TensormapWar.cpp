// tensormap-war: a tensor map in global memory is rewritten while bulk tensor
// copies issued through it may still read it (issue 30's shape 15; DeepGEMM
// #343: the grouped GEMM's producer replaced the A/B maps when the scheduler
// switched group, with the previous group's TMA loads still in flight).
//
// A cp.async.bulk.tensor reads its tensor map asynchronously, after the
// instruction is issued (PTX ISA, "Tensor map"; the map is read through the
// tensormap proxy, which is why a rewritten map is published with
// fence.proxy.tensormap::generic): the issuing thread knows the copy is done
// with the map only when it observes the copy's completion, its mbarrier
// phase (complete_tx) or its bulk group (cp.async.bulk.wait_group[.read]).
// Program order, and the tensormap proxy fences, do not complete it.
//
// Reported at the write W of a map (tensormap.replace on global memory,
// tensormap.cp_fenceproxy into global memory) when a tensor copy C through
// the same map pointer (ValueAnalysis::sameValue of C's map and W's address)
// reaches W and no completion of C (a wait on a barrier that may be C's
// completion barrier; a bulk wait_group) lies on any way from C to W
// (model/PathsBetween.h: a drain that some path skips still counts). Default
// tier when no synchronization at all lies on those ways (no mbarrier wait,
// no barrier, no wait_group, no strong load, no call that was not inlined):
// the copy is then decidedly unobserved. When another synchronization lies
// there (a wait on another barrier may complete the copy transitively: a
// consumer waited for it and released the stage), strict tier,
// "copy-completion". Writes of a map with st, and maps in shared
// memory, are not asked (a copy's map operand is in global, param or const
// space).
#include <fmt/format.h>

#include <set>
#include <string>
#include <vector>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "model/HandOffs.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/PathsBetween.h"
#include "model/Values.h"

namespace fenceline::checks {

namespace {

using model::EffectKind;
using model::FunctionModel;
using model::InstId;
using model::Semantics;
using model::Space;

// The tensor-map operand of a bulk tensor copy ([map, {coordinates}]), or -1.
int mapOperand(const FunctionModel& fn, InstId i) {
  const auto& in = fn.instructions[i];
  const auto& e = in.effect;
  if (e.kind != EffectKind::AsyncCopy || !in.hasModifier("tensor") || in.hasModifier("prefetch")) return -1;
  if (e.sourceSpace == Space::Tensor) return e.source;
  if (e.destinationSpace == Space::Tensor) return e.destination;
  return -1;
}

// tensormap.replace / tensormap.cp_fenceproxy writing a map in global memory.
bool isMapWrite(const FunctionModel& fn, InstId i) {
  const auto& in = fn.instructions[i];
  const auto& e = in.effect;
  return in.opcode() == "tensormap" && e.writes && e.address >= 0 && !model::isSharedSpace(e.space);
}

bool isBulkWait(const FunctionModel& fn, InstId i) {
  return fn.instructions[i].effect.kind == EffectKind::AsyncWait && fn.instructions[i].hasModifier("bulk");
}

// The issuing thread observes the copy's completion here (or may).
bool completes(const FunctionModel& fn, InstId i, InstId copy) {
  const auto& ec = fn.instructions[copy].effect;
  if (isBulkWait(fn, i)) return true;
  if (ec.mbarrier < 0 || !model::handoff::isMbarrierWait(fn, i)) return false;
  const auto& ei = fn.instructions[i].effect;
  return fn.memory->aliasEvidence(i, ei.address, 0, copy, ec.mbarrier, 0, true, false).result !=
         model::AliasResult::No;
}

// Any instruction through which the copy's completion could reach the thread
// another way (another barrier's wait after a consumer waited for the copy).
bool maySynchronize(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  if (e.kind == EffectKind::Call) return model::isOpaqueCall(fn, i);
  switch (e.kind) {
    case EffectKind::MbarrierWait:
    case EffectKind::CtaBarrier:
    case EffectKind::Unknown:
    case EffectKind::AsyncWait:
    case EffectKind::GridDependencyWait:
      return true;
    case EffectKind::Load:
    case EffectKind::ReadModifyWrite:
      return e.semantics != Semantics::Weak && e.semantics != Semantics::None;
    default:
      return false;
  }
}

report::Diagnostic render(const FunctionModel& fn, InstId write, InstId copy, bool decided) {
  const bool group = fn.instructions[copy].effect.mbarrier < 0;
  auto d = protocol::makeDiagnostic(
      fn, write, "tensormap-war",
      "tensor map in global memory is rewritten while a bulk tensor copy issued through it may still be reading "
      "it (the copy reads its map asynchronously, after issue)",
      group ? "wait for the copies issued through this map before rewriting it: "
              "cp.async.bulk.wait_group.read 0 (cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>())) "
              "by the issuing thread before the write"
            : "wait for the copies issued through this map before rewriting it: the issuing thread waits on the "
              "completion mbarrier phase of every copy still in flight (the last D stages of the ring), as "
              "CUTLASS's grouped GEMM does before its tensor-map update");
  if (group) {
    d.fixRequest = insertBefore(fn, write, report::FenceToInsert::BulkWaitRead);
    d.fixRequest.count = 0;
    d.fixRequest.beforeHelperCall = true;
    d.fixRequest.after.push_back(report::locationOf(fn, copy));
  } else {
    d.fixRequest = noMachineFix("the copies complete on mbarrier phases the fix must name: not a one-line "
                                "insertion");
  }
  protocol::addNote(d, fn, copy, "bulk tensor copy through the same map, not yet observed complete");
  d.evidence.push_back(report::link(fn, report::LinkKind::AsyncOperation, copy, "tensor-copy"));
  d.evidence.push_back(report::link(fn, report::LinkKind::SameBytes, write, "same-map-pointer",
                                    "the write's address is the copy's tensor-map operand"));
  if (decided)
    d.evidence.push_back(report::link(fn, report::LinkKind::HandOff, write, "program-order",
                                      "a path from the copy reaches the write with no wait of any kind"));
  else
    d.evidence.push_back(report::undecidedLink(
        fn, report::LinkKind::HandOff, write, "copy-completion",
        "every path from the copy to the write passes a synchronization on another barrier, which may or may "
        "not complete the copy"));
  return d;
}

}  // namespace

void checkTensormapWar(const FunctionModel& fn, Findings& out) {
  if (!fn.memory || !fn.values) return;
  std::vector<InstId> copies, writes;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (mapOperand(fn, i) >= 0) copies.push_back(i);
    else if (isMapWrite(fn, i)) writes.push_back(i);
  }
  if (copies.empty() || writes.empty()) return;
  std::set<std::string> reported;
  for (InstId w : writes) {
    const int address = fn.instructions[w].effect.address;
    InstId strictCopy = -1;
    bool found = false;
    for (InstId c : copies) {
      if (!fn.values->sameValue(c, mapOperand(fn, c), w, address) || !model::reachable(fn, c, w)) continue;
      // What lies on the ways from the copy to the write: a completion of the
      // copy there (even one some path skips: a drain loop of zero trips)
      // leaves the pair alone; no synchronization at all decides it.
      const std::vector<char> between = model::instructionsBetween(fn, c, w);
      bool completed = false, synchronized = false;
      for (InstId i = 0; i < static_cast<InstId>(between.size()) && !completed; ++i) {
        if (!between[i]) continue;
        completed = completes(fn, i, c);
        synchronized |= maySynchronize(fn, i);
      }
      if (completed) continue;
      if (!synchronized) {
        if (reported.insert(protocol::siteKey(fn, w)).second) out.push_back(render(fn, w, c, true));
        found = true;
        break;
      }
      if (strictCopy < 0) strictCopy = c;
    }
    if (!found && strictCopy >= 0 && reported.insert(protocol::siteKey(fn, w)).second)
      out.push_back(render(fn, w, strictCopy, false));
  }
}

}  // namespace fenceline::checks
