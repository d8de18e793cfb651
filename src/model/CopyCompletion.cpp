// Completion points of Ampere cp.async copies (see CopyCompletion.h): the
// non-bulk async-group walk of BulkGroups for the waits, and the mbarrier
// waits of the barriers that cp.async.mbarrier.arrive hands the copies to.
#include "model/CopyCompletion.h"

#include <algorithm>
#include <map>

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

// Every mbarrier wait of `waits` that may poll the barrier `arrive` signals.
std::vector<InstId> barrierWaits(const FunctionModel& fn, InstId arrive, const std::vector<InstId>& waits) {
  const int operand = fn.instructions[arrive].effect.address;
  std::vector<InstId> out;
  for (InstId w : waits) {
    const int address = fn.instructions[w].effect.address;
    if (fn.memory && operand >= 0 && address >= 0 && fn.memory->alias(arrive, operand, w, address) == AliasResult::No)
      continue;
    out.push_back(w);
  }
  return out;
}

std::vector<InstId> mbarrierWaits(const FunctionModel& fn) {
  std::vector<InstId> waits;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i)
    if (fn.instructions[i].block >= 0 && fn.instructions[i].effect.kind == EffectKind::MbarrierWait) waits.push_back(i);
  return waits;
}

// The completion points of one copy; `waitsOf(arrive)` gives the barrier
// waits a copy arrive hands completion to.
template <class WaitsOf>
std::vector<InstId> completionPoints(const FunctionModel& fn, InstId copy, WaitsOf waitsOf) {
  std::vector<InstId> arrives;
  std::vector<InstId> points = settlingWaits(fn, copy, GroupKind::NonBulk, BulkWait::Complete, [&](InstId i) {
    if (!isCopyArrive(fn.instructions[i])) return false;
    arrives.push_back(i);
    return true;
  });
  std::sort(arrives.begin(), arrives.end());
  arrives.erase(std::unique(arrives.begin(), arrives.end()), arrives.end());
  for (InstId arrive : arrives) {
    const std::vector<InstId>& waits = waitsOf(arrive);
    points.insert(points.end(), waits.begin(), waits.end());
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

}  // namespace

bool isAmpereCopy(const FunctionModel& fn, InstId inst) {
  const MemoryEffect& e = fn.instructions[inst].effect;
  return e.kind == EffectKind::AsyncCopy && e.proxy == Proxy::Generic && e.destination >= 0;
}

CopyCompletions::CopyCompletions(const FunctionModel& fn) : run_(fn.instructions.size(), -1) {
  std::vector<InstId> waits;  // the function's mbarrier waits, listed when a copy arrive needs them
  std::map<InstId, std::vector<InstId>> waitsOfArrive;
  auto waitsOf = [&](InstId arrive) -> const std::vector<InstId>& {
    auto [it, fresh] = waitsOfArrive.try_emplace(arrive);
    if (fresh) {
      if (waits.empty()) waits = mbarrierWaits(fn);
      it->second = barrierWaits(fn, arrive, waits);
    }
    return it->second;
  };
  InstId previous = -1;  // the last copy, while nothing since it changes the groups
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    const Inst& in = fn.instructions[i];
    if (in.block < 0) continue;
    if (previous >= 0 && (changesGroups(in) || in.block != fn.instructions[previous].block)) previous = -1;
    if (!isAmpereCopy(fn, i)) continue;
    copies_.push_back(i);
    if (previous >= 0 && fn.sameGuard(previous, i)) {
      run_[i] = run_[previous];
    } else {
      run_[i] = static_cast<int>(points_.size());
      points_.push_back(completionPoints(fn, i, waitsOf));
    }
    previous = i;
  }
}

const std::vector<InstId>& CopyCompletions::of(InstId copy) const {
  if (copy < 0 || static_cast<size_t>(copy) >= run_.size() || run_[copy] < 0) return none_;
  return points_[run_[copy]];
}

}  // namespace fenceline::model
