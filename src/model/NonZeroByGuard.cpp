// See NonZeroByGuard.h.
#include "model/NonZeroByGuard.h"

#include <optional>
#include <string_view>
#include <vector>

#include "model/BranchEdges.h"
#include "model/Comparisons.h"
#include "model/Paths.h"
#include "model/Values.h"

namespace fenceline::model {
namespace {

using Kind = ptx::Operand::Kind;

// One value the guard may test: a register as its one definition left it.
struct Tested {
  ValueReg reg = -1;
  InstId def = -1;
};

std::optional<InstId> onlyDefinition(const FunctionModel& fn, ValueReg reg, InstId at) {
  const std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
  if (defs.size() != 1) return std::nullopt;
  return defs[0];
}

// The width of an integer type modifier (u32, s64, ...), or 0.
int integerBits(std::string_view m) {
  if (m.size() < 2 || (m[0] != 'u' && m[0] != 's')) return 0;
  const std::string_view bits = m.substr(1);
  return bits == "8" ? 8 : bits == "16" ? 16 : bits == "32" ? 32 : bits == "64" ? 64 : 0;
}

// `cvt` between integer types that is 0 exactly where its source is 0: a
// widening one, or a narrowing one of a source the analysis bounds within
// the destination's unsigned range.
bool keepsZeroExactly(const FunctionModel& fn, InstId cvt) {
  const Inst& i = fn.instructions[cvt];
  if (i.opcode() != "cvt" || i.operands.size() != 2 || i.operands[1].kind != Kind::Register) return false;
  std::vector<int> widths;
  for (std::string_view m : i.syntax->modifiers) {
    if (const int bits = integerBits(m)) widths.push_back(bits);
    else return false;  // a float type, a rounding or saturation mode
  }
  if (widths.size() != 2) return false;
  const int destination = widths[0], source = widths[1];
  if (destination >= source) return true;
  const auto range = fn.values->operandValue(cvt, 1).numericRange();
  return range && range->first >= 0 && range->second < (int64_t(1) << destination);
}

bool testsRegister(const FunctionModel& fn, InstId setp, const ptx::Operand& op, const Tested& tested) {
  if (op.kind != Kind::Register || op.reg != tested.reg) return false;
  const std::optional<InstId> def = onlyDefinition(fn, op.reg, setp);
  return def && *def == tested.def;
}

// The predicate `pred`, read at `at`, holding `value` implies `tested != 0`.
bool impliesNonZero(const FunctionModel& fn, ValueReg pred, InstId at, bool value, const Tested& tested, int depth = 0) {
  if (depth > 6 || pred < 0) return false;
  const std::optional<InstId> d = onlyDefinition(fn, pred, at);
  if (!d) return false;
  const Inst& def = fn.instructions[*d];
  if (def.guard && def.guard->reg >= 0) return false;
  const std::string_view op = def.opcode();
  if (op == "not" && def.operands.size() == 2 && def.operands[1].kind == Kind::Register)
    return impliesNonZero(fn, def.operands[1].reg, *d, !value, tested, depth + 1);
  // `or` false: every operand false; `and` true: every operand true.
  if ((op == "or" || op == "and") && def.hasModifier("pred") && def.operands.size() == 3 && value == (op == "and")) {
    for (int k : {1, 2}) {
      const ptx::Operand& operand = def.operands[k];
      if (operand.kind == Kind::Register &&
          impliesNonZero(fn, operand.reg, *d, operand.negated ? !value : value, tested, depth + 1))
        return true;
    }
    return false;
  }
  if (op != "setp" || def.operands.size() != 3) return false;
  const std::string_view cmp = comparisonOf(*def.syntax);
  if (!((cmp == "ne" && value) || (cmp == "eq" && !value))) return false;
  for (int side : {1, 2}) {
    const std::optional<int64_t> zero = fn.values->constantOf(*d, 3 - side);
    if (zero && *zero == 0 && testsRegister(fn, *d, def.operands[side], tested)) return true;
  }
  return false;
}

}  // namespace

bool nonZeroByGuard(const FunctionModel& fn, ValueReg reg, InstId at) {
  if (!fn.values || reg < 0) return false;
  const std::optional<InstId> def = onlyDefinition(fn, reg, at);
  if (!def) return false;
  std::vector<Tested> tested{{reg, *def}};
  if (keepsZeroExactly(fn, *def))
    if (const std::optional<InstId> source = onlyDefinition(fn, fn.instructions[*def].operands[1].reg, *def))
      tested.push_back({fn.instructions[*def].operands[1].reg, *source});
  const BlockId block = fn.blockOf[at];
  for (BlockId to = block; to >= 0; to = fn.idom[to]) {
    for (BlockId from : fn.blocks[to].predecessors) {
      if (!edgeDominatesBlock(fn, from, to, block)) continue;
      const std::optional<EdgeCondition> edge = edgeCondition(fn, from, to);
      if (!edge) continue;
      for (const Tested& t : tested)
        // A definition the guard's path runs again may give another value.
        if (!reachable(fn, edge->branch, t.def) && impliesNonZero(fn, edge->predicate, edge->branch, edge->value, t))
          return true;
    }
    if (fn.idom[to] == to) break;
  }
  return false;
}

}  // namespace fenceline::model
