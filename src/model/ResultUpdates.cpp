// See ResultUpdates.h.
#include "model/ResultUpdates.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "model/Memory.h"
#include "model/Operands.h"
#include "model/Values.h"

namespace fenceline::model {
namespace {

// The operand whose value the instruction writes: a CAS's new value (after
// its compare operand), the last operand of any other atomic or reduction.
int writtenOperand(const Inst& in) {
  const int address = in.effect.address;
  const int last = static_cast<int>(in.operands.size()) - 1;
  if (address < 0 || last <= address) return -1;
  if (in.hasModifier("cas")) return address + 2 <= last ? address + 2 : -1;
  return last;
}

// Where a load's value comes from, when it is not data: a parameter or
// constant bank (nothing to follow), or the store bound to it (follow its
// value).
enum class LoadKind { Data, Fixed, Bound };

LoadKind loadKind(const Inst& in) {
  if (in.boundStore >= 0) return LoadKind::Bound;
  const Space space = in.effect.space;
  if (space == Space::Param || space == Space::Const) return LoadKind::Fixed;
  return LoadKind::Data;
}

// The registers whose values an instruction computes its result from: not
// its guard, nor the predicate a `selp` chooses by (a choice between two
// values that are not data is not data: a flag of 1 or 0 by a test of the
// input).
std::vector<ValueReg> valueSources(const Inst& def) {
  std::vector<ValueReg> reads = registerUse(def).read;
  std::vector<ValueReg> choosers;
  if (def.guard && def.guard->reg >= 0) choosers.push_back(def.guard->reg);
  if (def.opcode() == "selp" && def.operands.size() == 4 && def.operands[3].kind == ptx::Operand::Kind::Register)
    choosers.push_back(def.operands[3].reg);
  std::erase_if(reads, [&](ValueReg r) { return std::find(choosers.begin(), choosers.end(), r) != choosers.end(); });
  return reads;
}

}  // namespace

bool isResultUpdate(const FunctionModel& fn, InstId rmw) {
  if (!fn.values) return false;
  const Inst& in = fn.instructions[rmw];
  if (in.effect.kind != EffectKind::ReadModifyWrite) return false;
  const int value = writtenOperand(in);
  if (value < 0 || in.operands[value].kind != ptx::Operand::Kind::Register) return false;
  constexpr size_t kMaxSteps = 4096;
  std::set<std::pair<ValueReg, InstId>> seen;
  std::vector<std::pair<ValueReg, InstId>> work{{in.operands[value].reg, rmw}};
  while (!work.empty()) {
    model::poll();
    auto [reg, at] = work.back();
    work.pop_back();
    if (!seen.insert({reg, at}).second) continue;
    if (seen.size() > kMaxSteps) return false;
    for (InstId d : fn.values->reachingDefinitions(reg, at)) {
      const Inst& def = fn.instructions[d];
      switch (def.effect.kind) {
        case EffectKind::None:
        case EffectKind::CtaBarrier:
          for (ValueReg next : valueSources(def)) work.push_back({next, d});
          break;
        case EffectKind::Load:
          switch (loadKind(def)) {
            case LoadKind::Data: return true;
            case LoadKind::Fixed: break;
            case LoadKind::Bound: {
              const Inst& store = fn.instructions[def.boundStore];
              if (store.operands.size() > 1 && store.operands[1].kind == ptx::Operand::Kind::Register)
                work.push_back({store.operands[1].reg, def.boundStore});
              break;
            }
          }
          break;
        case EffectKind::ReadModifyWrite:
          // What the word itself held (a CAS retry's previous return) is the
          // update's old value; what another word's atomic returned is a
          // count (a reservation's slot: a producer index raised with a .sys
          // max on a doorbell record is a value a device polls).
          if (fn.memory && fn.memory->sameWord(d, rmw)) return true;
          break;
        default: break;
      }
    }
  }
  return false;
}

}  // namespace fenceline::model
