// The one block that runs an instruction (see PinnedBlock.h).
#include "model/PinnedBlock.h"

#include <string_view>

#include "model/OwnWords.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using Kind = ptx::Operand::Kind;

constexpr int kMaxDepth = 12;

struct Pins {
  bool pinned[3] = {false, false, false};
  int64_t value[3] = {0, 0, 0};
  bool contradiction = false;  // two pins of one dimension with different values

  void pin(int d, int64_t v) {
    if (pinned[d] && value[d] != v) contradiction = true;
    pinned[d] = true;
    value[d] = v;
  }
};

// The bits of an integer type modifier (u32, s64, b16), or 0.
int integerBits(std::string_view m) {
  if (m.size() < 2 || (m[0] != 'u' && m[0] != 's' && m[0] != 'b')) return 0;
  int bits = 0;
  for (char ch : m.substr(1)) {
    if (ch < '0' || ch > '9') return 0;
    bits = bits * 10 + (ch - '0');
  }
  return bits;
}

// cvt.DST.SRC between integers with DST at least as wide as SRC.
bool widensInteger(const Inst& in) {
  if (in.opcode() != "cvt") return false;
  int types[2] = {0, 0}, n = 0;
  for (const auto& m : in.syntax->modifiers) {
    const int bits = integerBits(m);
    if (bits == 0) continue;
    if (n == 2) return false;
    types[n++] = bits;
  }
  return n == 2 && types[0] >= types[1];
}

int blockDimension(std::string_view name) {
  if (name.size() == 8 && name.starts_with("%ctaid.") && name[7] >= 'x' && name[7] <= 'z') return name[7] - 'x';
  return -1;
}

// The value of `op` (read at `at`) is `c`: pin the block indices that implies.
void pinsOfEquality(const FunctionModel& fn, const ptx::Operand& op, InstId at, int64_t c, Pins& pins, int depth) {
  if (depth > kMaxDepth) return;
  if (op.kind == Kind::Special) {
    if (const int d = blockDimension(op.text); d >= 0) pins.pin(d, c);
    return;
  }
  if (op.kind != Kind::Register || op.reg < 0 || op.negated) return;
  const std::vector<InstId> defs = fn.values->reachingDefinitions(op.reg, at);
  if (defs.size() != 1) return;
  const Inst& in = fn.instructions[defs[0]];
  if (in.guard && in.guard->reg >= 0) return;
  const auto& ops = in.operands;
  const std::string_view opcode = in.opcode();
  // A copy of a whole register, or an integer widening: the value is the
  // operand's (a truncation or a half of a pair is not).
  if (ops.size() == 2 && ops[0].kind == Kind::Register && (opcode == "mov" || widensInteger(in)))
    return pinsOfEquality(fn, ops[1], defs[0], c, pins, depth + 1);
  // An `or` of values is 0 only when each of them is.
  if (opcode == "or" && c == 0 && ops.size() == 3 && !in.hasModifier("pred"))
    for (int k : {1, 2}) pinsOfEquality(fn, ops[k], defs[0], 0, pins, depth + 1);
}

// Predicate `reg` has `value` at `at`: the block indices that implies.
void pinsOfPredicate(const FunctionModel& fn, ValueReg reg, InstId at, bool value, Pins& pins, int depth) {
  if (reg < 0 || depth > kMaxDepth) return;
  const std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
  if (defs.size() != 1) return;
  const InstId def = defs[0];
  const Inst& in = fn.instructions[def];
  if (in.guard && in.guard->reg >= 0) return;
  const auto& ops = in.operands;
  const std::string_view opcode = in.opcode();
  auto predicate = [&](size_t k) { return k < ops.size() && ops[k].kind == Kind::Register && ops[k].reg >= 0; };
  auto sub = [&](size_t k, bool v) { pinsOfPredicate(fn, ops[k].reg, def, ops[k].negated ? !v : v, pins, depth + 1); };
  if (opcode == "not" && predicate(1)) return sub(1, !value);
  if (opcode == "mov" && predicate(1)) return sub(1, value);
  if ((opcode == "and" && value) || (opcode == "or" && !value)) {
    for (size_t k = 1; k <= 2; ++k)
      if (predicate(k)) sub(k, value);
    return;
  }
  if (opcode != "setp" || ops.size() != 3 || ops[0].kind != Kind::Register) return;
  const bool equal = (in.hasModifier("eq") && value) || (in.hasModifier("ne") && !value);
  if (!equal) return;
  if (const auto c = fn.values->constantOf(def, 2)) pinsOfEquality(fn, ops[1], def, *c, pins, depth + 1);
  if (const auto c = fn.values->constantOf(def, 1)) pinsOfEquality(fn, ops[2], def, *c, pins, depth + 1);
}

}  // namespace

int blockDimensionsRead(const FunctionModel& fn) {
  int dims = 0;
  for (const Inst& in : fn.instructions)
    for (const ptx::Operand& op : in.operands) {
      if (op.kind != Kind::Special) continue;
      const std::string_view name = op.text;
      if (name.starts_with("%cluster_ctarank")) dims |= 7;
      const bool blockRegister = name.starts_with("%ctaid.") || name.starts_with("%nctaid.") ||
                                 name.starts_with("%clusterid.") || name.starts_with("%nclusterid.") ||
                                 name.starts_with("%cluster_ctaid.") || name.starts_with("%cluster_nctaid.");
      if (blockRegister && name.back() >= 'x' && name.back() <= 'z') dims |= 1 << (name.back() - 'x');
    }
  return dims;
}

std::optional<std::array<int64_t, 3>> pinnedBlock(const FunctionModel& fn, InstId inst, int read) {
  if (!fn.values || inst < 0) return std::nullopt;
  Pins pins;
  for (const ThreadGuard& g : guardsOf(fn, inst)) pinsOfPredicate(fn, g.predicate, g.at, g.value, pins, 0);
  if (pins.contradiction) return std::nullopt;
  std::array<int64_t, 3> block{0, 0, 0};
  bool any = false;
  for (int d = 0; d < 3; ++d) {
    if (pins.pinned[d]) {
      block[d] = pins.value[d];
      any = true;
    } else if (read & (1 << d)) {
      return std::nullopt;
    }
  }
  if (!any) return std::nullopt;
  return block;
}

}  // namespace fenceline::model
