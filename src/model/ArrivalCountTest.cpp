// The arrival-count test of a ticket's equality (model/ArrivalCountTest.h).
#include "model/ArrivalCountTest.h"

#include <optional>

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

}  // namespace

bool comparesWithArrivalCount(const FunctionModel& fn, const UniformModes& modes, InstId setp) {
  const Inst& def = fn.instructions[setp];
  if (def.opcode() != "setp" || !(def.hasModifier("eq") || def.hasModifier("ne")) || def.operands.size() < 3 || !fn.values)
    return false;
  const int a = static_cast<int>(def.operands.size()) - 2;
  const int bits = comparedBits(def);
  bool countOperand = false;
  for (int k : {a, a + 1}) {
    const std::optional<int64_t> c = fn.values->constantOf(setp, k);
    // 0 is the first arriver's value, all-ones a reservation's sentinel: on either side, no count.
    if (c && (*c == 0 || isAllOnes(*c, bits))) return false;
    if (modes.levelOf(def.operands[k], setp) != UniformModes::Level::Thread) countOperand = true;
  }
  return countOperand;
}

}  // namespace fenceline::model
