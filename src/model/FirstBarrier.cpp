// The block's first barrier (see FirstBarrier.h): two walks over the
// instructions, one from every whole-CTA barrier and one from the entry that
// stops at them.
#include "model/FirstBarrier.h"

#include "model/Limits.h"
#include "model/MemoryEffect.h"

namespace fenceline::model {

namespace {

bool isWholeBarrier(const FunctionModel& fn, InstId i) {
  const Inst& in = fn.instructions[i];
  return in.syntax && isWholeCtaBarrier(*in.syntax, in.effect);
}

// Marks every instruction reached from the starts (each start's block from
// the start on), stopping before an instruction `stop` accepts (not marked).
template <typename Stop>
void reach(const FunctionModel& fn, const std::vector<InstId>& starts, const Stop& stop, std::vector<char>& marked) {
  std::vector<char> entered(fn.blocks.size(), 0);
  std::vector<BlockId> work;
  auto scan = [&](BlockId b, InstId first) {
    for (InstId i = first; i < fn.blocks[b].last; ++i) {
      if (stop(i)) return;
      marked[i] = 1;
    }
    for (BlockId s : fn.blocks[b].successors)
      if (!entered[s]) entered[s] = 1, work.push_back(s);
  };
  for (InstId s : starts) scan(fn.blockOf[s], s);
  while (!work.empty()) {
    poll();
    const BlockId b = work.back();
    work.pop_back();
    scan(b, fn.blocks[b].first);
  }
}

}  // namespace

FirstBarrier::FirstBarrier(const FunctionModel& fn)
    : afterBarrier_(fn.instructions.size(), 0), beforeBarrier_(fn.instructions.size(), 0) {
  if (fn.blocks.empty()) return;
  // The barriers, and the calls (a callee may hold one: what follows a call
  // is not taken to come before every barrier).
  std::vector<InstId> barriers;
  bool anyBarrier = false;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    const bool whole = isWholeBarrier(fn, i);
    anyBarrier |= whole;
    if (whole || fn.instructions[i].effect.kind == EffectKind::Call) barriers.push_back(i);
  }
  if (!anyBarrier) return;
  anyBarrier_ = true;
  // From each barrier on (the barrier itself stops nothing: start past it).
  std::vector<InstId> past;
  for (InstId b : barriers) {
    const BlockId block = fn.blockOf[b];
    if (b + 1 < fn.blocks[block].last) past.push_back(b + 1);
    else
      for (BlockId s : fn.blocks[block].successors) past.push_back(fn.blocks[s].first);
  }
  reach(fn, past, [](InstId) { return false; }, afterBarrier_);
  reach(fn, {fn.blocks[0].first}, [&](InstId i) { return isWholeBarrier(fn, i); }, beforeBarrier_);
}

bool FirstBarrier::orders(InstId write, InstId read) const {
  if (write < 0 || read < 0 || static_cast<size_t>(write) >= afterBarrier_.size() ||
      static_cast<size_t>(read) >= beforeBarrier_.size())
    return false;
  return anyBarrier_ && !afterBarrier_[write] && !beforeBarrier_[read];
}

}  // namespace fenceline::model
