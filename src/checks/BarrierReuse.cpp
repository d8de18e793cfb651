// barrier-reuse: a counter barrier (an atomic add on a global counter, then a
// spin loop polling the same counter against a threshold) whose threshold is
// fixed (constants, kernel parameters, special registers: not derived from
// the arrival's own return value, not changing between uses) is used twice on
// the same counter with a path between the uses that does not reset the
// counter, or sits in a loop that brings it back without a reset. The second
// use passes at once. Reported at the second use's atomic (the loop's atomic),
// with a note at the first.
//
// Phase-bit barriers (the polled value is XORed with the arrival's return
// value; or, for a sign-bit barrier whose master flips bit 31 once per use,
// with a load of the counter before the arrival: model/PhaseFlipBarriers.h),
// generation counters (the threshold is a value loaded earlier) and
// epoch targets (the threshold changes with a loop counter) are not fixed.
#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "model/Paths.h"
#include "model/PhaseFlipBarriers.h"
#include "model/RotatingCounters.h"

namespace fenceline::checks {

using namespace protocol;

namespace {

using model::BlockId;
using model::EffectKind;

struct Use {
  InstId arrival = -1;
  InstId poll = -1;
  int32_t threshold = -1;  // identity of the value compared with the polled counter
};

bool inLoop(const model::Loop& loop, BlockId block) {
  return std::binary_search(loop.blocks.begin(), loop.blocks.end(), block);
}

bool isArrival(const FunctionModel& fn, InstId i) {
  const auto& inst = fn.instructions[i];
  return inst.effect.kind == EffectKind::ReadModifyWrite && model::writesGlobalMemory(fn, i) &&
         (inst.hasModifier("add") || inst.hasModifier("inc"));
}

bool isReset(const FunctionModel& fn, InstId i, InstId counter) {
  const auto& e = fn.instructions[i].effect;
  if (!e.writes || (e.kind != EffectKind::Store && e.kind != EffectKind::ReadModifyWrite)) return false;
  if (isArrival(fn, i)) return false;
  return fn.memory->sameWord(i, counter);
}

std::vector<Use> findUses(const ProtocolModel& ctx) {
  const FunctionModel& fn = ctx.function();
  std::vector<Use> uses;
  // The blocks a backward walk for an arrival enters: built once, from every
  // arrival of the function (issue 33: a walk per poll crossed the function).
  std::optional<model::TargetBlocks> arrivalBlocks;
  for (const auto& spin : ctx.spins()) {
    for (InstId poll : spin.polls) {
      for (InstId compare : spin.comparisons) {
        const auto& ops = fn.instructions[compare].operands;
        if (ops.size() < 3) continue;
        for (int polled = 1; polled <= 2; ++polled) {
          int other = 3 - polled;
          if (ops[polled].kind != ptx::Operand::Kind::Register) continue;
          if (!model::valueDependsOn(fn, ops[polled].reg, compare, {poll})) continue;
          // A phase bit compares with the arrival's own returned value.
          if (fn.values->readsAtomicResult(compare, polled)) continue;
          if (!fn.values->isInvariant(compare, other)) continue;
          int32_t threshold = fn.values->identity(compare, other);
          // A sign-bit phase barrier (model/PhaseFlipBarriers.h): the wait
          // compares bit 31 with its value read at the arrival, and the
          // master's amount flips it once per use. Not a fixed threshold.
          const InstId flipped = model::phaseFlipArrival(fn, compare, polled, poll);
          const bool phaseFlip = flipped >= 0 && model::addsPhaseFlip(fn, flipped);
          auto arrival = [&](InstId i) { return isArrival(fn, i) && fn.memory->sameWord(i, poll); };
          // The arrival comes first in the same trip: it dominates the wait.
          BlockId header = fn.loops[spin.loop].header;
          if (!arrivalBlocks) {
            std::vector<InstId> arrivals;
            for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i)
              if (isArrival(fn, i)) arrivals.push_back(i);
            arrivalBlocks.emplace(fn, arrivals);
          }
          for (InstId a : model::findReachingBackward(fn, poll, arrival, [](InstId) { return false; }, *arrivalBlocks))
            if (!spin.contains(fn, a) && fn.dominates(fn.blockOf[a], header) && !(phaseFlip && a == flipped))
              uses.push_back({a, poll, threshold});
        }
      }
    }
  }
  return uses;
}

}  // namespace

void checkBarrierReuse(const FunctionModel& fn, Findings& out) {
  const ProtocolModel& ctx = model::protocolOf(fn);
  std::vector<Use> uses = findUses(ctx);
  std::set<std::string> reported;
  auto report = [&](const Use& second, const Use& first, bool loop) {
    if (!reported.insert(siteKey(fn, second.arrival)).second) return;
    auto d = makeDiagnostic(
        fn, second.arrival, "barrier-reuse",
        loop ? fmt::format("counter barrier with a fixed threshold is reached again by the enclosing loop with no "
                           "reset or phase flip; every use after the first passes at once")
             : fmt::format("counter barrier with a fixed threshold is used again on the same counter (first use at "
                           "{}) with no reset or phase flip; this use passes at once",
                           describe(fn, first.arrival)),
        "make the barrier reusable: compare against a phase bit of the arrival's own return value "
        "(((old ^ now) & 0x80000000) != 0), a generation counter, or an epoch target that grows with each use; "
        "or use cooperative_groups::this_grid().sync()");
    if (loop) addNote(d, fn, first.poll, fmt::format("the wait compares the counter with a fixed threshold"));
    else addNote(d, fn, first.arrival, "first use of the counter");
    // The fix: every use of this counter in the function waits for its phase bit (fix/Rewrites.h).
    d.fixRequest.placement = report::FixPlacement::PhaseBitBarrier;
    d.fixRequest.anchor = report::locationOf(fn, second.arrival);
    d.fixRequest.reason =
        "the barrier is not of a shape the phase-bit rewrite recognizes; compare against a phase bit of the "
        "arrival's own return value by hand";
    for (const Use& u : uses)
      if (u.arrival == second.arrival || fn.memory->sameWord(u.arrival, second.arrival))
        d.fixRequest.barrierUses.emplace_back(report::locationOf(fn, u.arrival), report::locationOf(fn, u.poll));
    d.evidence.push_back(report::link(fn, report::LinkKind::Barrier, second.arrival, "arrival"));
    d.evidence.push_back(report::link(fn, report::LinkKind::Poll, second.poll, "fixed-threshold",
                                      "the wait compares the counter with a value that does not change between uses"));
    d.evidence.push_back(report::link(fn, report::LinkKind::Use, loop ? second.arrival : first.arrival,
                                      loop ? "loop-trip" : "same-word",
                                      loop ? "the enclosing loop reaches the arrival again"
                                           : "an earlier use of the same counter word"));
    out.push_back(std::move(d));
  };
  for (const Use& use : uses) {
    // A counter indexed by loop-carried state (a per-tile lock in a persistent
    // loop) is a different counter on each trip: not a reuse.
    if (fn.values->isMerged(use.arrival, fn.instructions[use.arrival].effect.address)) continue;
    auto reset = [&](InstId i) { return isReset(fn, i, use.arrival); };
    if (!model::reachable(fn, use.arrival, use.arrival) || model::everyPathPasses(fn, use.arrival, use.arrival, reset))
      continue;
    // A ticket (the arrival's own returned value decides who is last) with
    // a reset on some path before the next arrival: the thread the ticket
    // picks resets the counter every round, so the next use starts from the
    // reset value. Whether the reset races with threads still waiting is
    // counter-reset's question, not a reuse without a reset.
    if (std::binary_search(ctx.tickets().begin(), ctx.tickets().end(), use.arrival) &&
        model::findReachable(fn, use.arrival, reset, [&](InstId i) { return i == use.arrival; }) >= 0)
      continue;
    // A counter chosen by a turn that the barrier itself advances, zeroed
    // before it is taken again (model/RotatingCounters.h): another word on
    // the next trip.
    if (model::takesCountersInTurn(fn, use.arrival)) continue;
    report(use, use, true);
  }
  for (const Use& first : uses)
    for (const Use& second : uses) {
      if (first.arrival == second.arrival || first.threshold != second.threshold) continue;
      if (!fn.memory->sameWord(first.arrival, second.arrival)) continue;
      auto reset = [&](InstId i) { return isReset(fn, i, first.arrival); };
      // Second follows first within one trip of every loop around both (the
      // counter's address may change from trip to trip).
      auto nextTrip = [&](InstId i) {
        for (const auto& loop : fn.loops)
          if (fn.blocks[loop.header].first == i && inLoop(loop, fn.blockOf[first.arrival]) &&
              inLoop(loop, fn.blockOf[second.arrival]))
            return true;
        return false;
      };
      auto isSecond = [&](InstId i) { return i == second.arrival; };
      if (model::findReachable(fn, first.arrival, isSecond, nextTrip) < 0) continue;
      auto resetOrNextTrip = [&](InstId i) { return reset(i) || nextTrip(i); };
      if (!model::everyPathPasses(fn, first.arrival, second.arrival, resetOrNextTrip) ||
          model::findReachable(fn, first.arrival, isSecond, resetOrNextTrip) >= 0) {
        // Two copies of a barrier over counters taken in turn: each use takes
        // the counter after the last one's (model/RotatingCounters.h).
        if (model::takesCountersInTurn(fn, first.arrival) && model::takesCountersInTurn(fn, second.arrival)) continue;
        report(second, first, false);
      }
    }
}

}  // namespace fenceline::checks
