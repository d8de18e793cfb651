// Completion points of Ampere cp.async copies (see CopyCompletion.h): the
// non-bulk async-group walk of BulkGroups for the waits, and the mbarrier
// waits of the barriers that cp.async.mbarrier.arrive hands the copies to.
#include "model/CopyCompletion.h"

#include <algorithm>

#include "model/BulkGroups.h"
#include "model/Memory.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

bool isCopyArrive(const Inst& in) { return in.effect.kind == EffectKind::MbarrierArrive && in.opcode() == "cp"; }

// Instructions after which a later copy of the same block may complete
// elsewhere than the earlier one: group commits and waits, copy arrives.
bool changesGroups(const Inst& in) {
  const EffectKind k = in.effect.kind;
  return k == EffectKind::AsyncCommit || k == EffectKind::AsyncWait || isCopyArrive(in);
}

bool sameGuard(const FunctionModel& fn, InstId a, InstId b) {
  const auto& ga = fn.instructions[a].guard;
  const auto& gb = fn.instructions[b].guard;
  if (!ga || !gb) return !ga && !gb;
  if (ga->reg != gb->reg || ga->negated != gb->negated) return false;
  return !fn.values || fn.values->definition(ga->reg, a) == fn.values->definition(gb->reg, b);
}

// Every mbarrier wait that may poll the barrier `arrive` signals.
void addBarrierWaits(const FunctionModel& fn, InstId arrive, std::vector<InstId>& out) {
  const int operand = fn.instructions[arrive].effect.address;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    const Inst& in = fn.instructions[i];
    if (in.block < 0 || in.effect.kind != EffectKind::MbarrierWait) continue;
    if (fn.memory && operand >= 0 && in.effect.address >= 0 &&
        fn.memory->alias(arrive, operand, i, in.effect.address) == AliasResult::No)
      continue;
    out.push_back(i);
  }
}

}  // namespace

bool isAmpereCopy(const FunctionModel& fn, InstId inst) {
  const MemoryEffect& e = fn.instructions[inst].effect;
  return e.kind == EffectKind::AsyncCopy && e.proxy == Proxy::Generic && e.destination >= 0;
}

std::vector<InstId> copyCompletionPoints(const FunctionModel& fn, InstId copy) {
  std::vector<InstId> arrives;
  std::vector<InstId> points = settlingWaits(fn, copy, GroupKind::NonBulk, BulkWait::Complete, [&](InstId i) {
    if (!isCopyArrive(fn.instructions[i])) return false;
    arrives.push_back(i);
    return true;
  });
  std::sort(arrives.begin(), arrives.end());
  arrives.erase(std::unique(arrives.begin(), arrives.end()), arrives.end());
  for (InstId arrive : arrives) addBarrierWaits(fn, arrive, points);
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

CopyCompletions::CopyCompletions(const FunctionModel& fn) : run_(fn.instructions.size(), -1) {
  InstId previous = -1;  // the last copy, while nothing since it changes the groups
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    const Inst& in = fn.instructions[i];
    if (in.block < 0) continue;
    if (previous >= 0 && (changesGroups(in) || in.block != fn.instructions[previous].block)) previous = -1;
    if (!isAmpereCopy(fn, i)) continue;
    copies_.push_back(i);
    if (previous >= 0 && sameGuard(fn, previous, i)) {
      run_[i] = run_[previous];
    } else {
      run_[i] = static_cast<int>(points_.size());
      points_.push_back(copyCompletionPoints(fn, i));
    }
    previous = i;
  }
}

const std::vector<InstId>& CopyCompletions::of(InstId copy) const {
  if (copy < 0 || static_cast<size_t>(copy) >= run_.size() || run_[copy] < 0) return none_;
  return points_[run_[copy]];
}

}  // namespace fenceline::model
