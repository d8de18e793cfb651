// The arrival-count test of a ticket's equality (model/ArrivalCountTest.h).
#include "model/ArrivalCountTest.h"

#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "model/Operands.h"
#include "model/UniformModes.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

// The bits the comparison reads: its type's width (b16/u16/s16 ... b64), 32 if none is named.
int comparedBits(const Inst& setp) {
  for (std::string_view m : setp.syntax->modifiers) {
    if (m.size() < 3 || (m[0] != 'b' && m[0] != 'u' && m[0] != 's')) continue;
    if (m.substr(1) == "16") return 16;
    if (m.substr(1) == "32") return 32;
    if (m.substr(1) == "64") return 64;
  }
  return 32;
}

bool isAllOnes(int64_t value, int bits) {
  if (bits >= 64) return value == -1;
  const uint64_t mask = (uint64_t(1) << bits) - 1;
  return (uint64_t(value) & mask) == mask;
}

// The operand's value is computed, through instructions without memory effect
// and inlined calls' returned values, from something other than the launch and
// the counting atomics: a load or atomic whose value a thread may write while
// the kernel runs. A walk past kMaxSteps definitions decides nothing (false).
bool readsRunTimeValue(const FunctionModel& fn, const UniformModes& modes, InstId setp, int operand,
                       const std::function<bool(InstId)>& counting) {
  constexpr size_t kMaxSteps = 64;
  const ptx::Operand& op = fn.instructions[setp].operands[operand];
  if (op.kind != ptx::Operand::Kind::Register || op.reg < 0) return false;
  std::vector<std::pair<ValueReg, InstId>> work{{op.reg, setp}};
  std::unordered_set<InstId> seen;
  while (!work.empty() && seen.size() < kMaxSteps) {
    const auto [reg, at] = work.back();
    work.pop_back();
    for (InstId d : fn.values->reachingDefinitions(reg, at)) {
      if (!seen.insert(d).second || counting(d)) continue;
      const Inst& def = fn.instructions[d];
      if (def.boundStore >= 0) {  // a value returned by an inlined call: the store that wrote it
        const ptx::Operand& value = fn.instructions[def.boundStore].operands.back();
        if (value.kind == ptx::Operand::Kind::Register) work.push_back({value.reg, def.boundStore});
        continue;
      }
      if (def.effect.kind == EffectKind::None) {
        for (ValueReg r : registerUse(def).read) work.push_back({r, d});
        continue;
      }
      // A load the launch fixes (a parameter, a constant at a uniform address) is no run-time value.
      if (modes.levelOfDefinition(d) == UniformModes::Level::Thread) return true;
    }
  }
  return false;
}

}  // namespace

bool isComparison(const Inst& inst) { return inst.opcode() == "setp" || inst.opcode() == "set"; }

bool comparesWithArrivalCount(const FunctionModel& fn, const UniformModes& modes, InstId setp,
                              const std::function<bool(InstId)>& counting) {
  const Inst& def = fn.instructions[setp];
  if (def.opcode() != "setp" || !(def.hasModifier("eq") || def.hasModifier("ne")) || def.operands.size() < 3 || !fn.values)
    return false;
  const int a = static_cast<int>(def.operands.size()) - 2;
  const int bits = comparedBits(def);
  bool launchCount = false;
  for (int k : {a, a + 1}) {
    const std::optional<int64_t> c = fn.values->constantOf(setp, k);
    // 0 is the first arriver's value, all-ones a reservation's sentinel: on either side, no count.
    if (c && (*c == 0 || isAllOnes(*c, bits))) return false;
    if (modes.levelOf(def.operands[k], setp) != UniformModes::Level::Thread) launchCount = true;
  }
  // A count the launch fixes on one side: the other is the returned value, however it reached
  // the comparison (through shared memory, an inlined call). Otherwise both sides are computed
  // from the counting atomics and the launch alone (an episode's end), never from a run-time read.
  if (launchCount) return true;
  return !readsRunTimeValue(fn, modes, setp, a, counting) && !readsRunTimeValue(fn, modes, setp, a + 1, counting);
}

}  // namespace fenceline::model
