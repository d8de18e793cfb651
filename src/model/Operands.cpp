// The destination-operand table (see Operands.h). PTX puts the destination
// first; the exceptions are the opcodes below, whose operand 0 is read (a
// store's address, a branch target, a barrier id) or that write only under
// some modifiers.
#include "model/Operands.h"

#include <string_view>
#include <unordered_set>

namespace fenceline::model {
namespace {

using Kind = ptx::Operand::Kind;

// Opcodes whose operand 0 is never a destination.
const std::unordered_set<std::string_view>& opcodesWithoutDestination() {
  static const std::unordered_set<std::string_view> table = {
      "st",        "red",       "bra",      "brx",      "call",     "ret",       "exit",
      "trap",      "brkpt",     "fence",    "membar",   "nanosleep", "prefetch", "prefetchu",
      "cp",        "stmatrix",  "sust",     "sured",    "tensormap", "setmaxnreg", "griddepcontrol",
      "pmevent",   "stackrestore", "applypriority", "discard"};
  return table;
}

void collect(const ptx::Operand& op, std::vector<ValueReg>& data, std::vector<ValueReg>& address) {
  switch (op.kind) {
    case Kind::Register:
      if (op.reg >= 0) data.push_back(op.reg);
      break;
    case Kind::Address:
      if (op.base.kind == Kind::Register && op.base.reg >= 0) address.push_back(op.base.reg);
      for (const auto& e : op.elements) collect(e, data, address);
      break;
    case Kind::Vector:
    case Kind::ParamList:
    case Kind::PredicatePair:
      for (const auto& e : op.elements) collect(e, data, address);
      break;
    default:
      break;
  }
}

bool isDestinationKind(Kind kind) {
  return kind == Kind::Register || kind == Kind::Vector || kind == Kind::PredicatePair;
}


}  // namespace

bool writesOperand0(const Inst& inst) {
  if (inst.operands.empty() || !isDestinationKind(inst.operands[0].kind)) return false;
  if (inst.writesOperand0 < 0) inst.writesOperand0 = writesFirstOperand(*inst.syntax) ? 1 : 0;
  return inst.writesOperand0 == 1;
}

bool writesFirstOperand(const ptx::Instruction& i) {
  const std::string_view op = i.opcode;
  // bar.red / barrier.red write the reduced predicate or count; bar.sync,
  // bar.arrive, bar.warp.sync and barrier.cluster.* write nothing.
  if (op == "bar" || op == "barrier") return i.hasModifier("red");
  if (op == "multimem") return i.hasModifier("ld_reduce");
  // mbarrier.arrive* return a state, try_wait/test_wait a predicate;
  // init, inval, expect_tx and complete_tx take the barrier's address first.
  if (op == "mbarrier")
    return i.hasModifier("arrive") || i.hasModifier("arrive_drop") || i.hasModifier("try_wait") ||
           i.hasModifier("test_wait") || i.hasModifier("pending_count");
  return !opcodesWithoutDestination().count(op);
}

RegisterUse registerUse(const Inst& inst) {
  RegisterUse use;
  const auto& ops = inst.operands;
  size_t first = 0;
  if (writesOperand0(inst)) {
    std::vector<ValueReg> none;
    collect(ops[0], use.written, none);
    // wgmma.mma_async accumulates into operand 0: read as well as written.
    if (inst.opcode() == "wgmma") collect(ops[0], use.read, none);
    first = 1;
  }
  for (size_t k = first; k < ops.size(); ++k) collect(ops[k], use.read, use.addressed);
  if (inst.guard && inst.guard->reg >= 0) use.read.push_back(inst.guard->reg);
  return use;
}

namespace {

void visitOperand(const ptx::Operand& op, bool written, const std::function<void(ValueReg, bool)>& visit) {
  switch (op.kind) {
    case Kind::Register:
      if (op.reg >= 0) visit(op.reg, written);
      break;
    case Kind::Address:
      if (op.base.kind == Kind::Register && op.base.reg >= 0) visit(op.base.reg, written);
      for (const auto& e : op.elements) visitOperand(e, written, visit);
      break;
    case Kind::Vector:
    case Kind::ParamList:
    case Kind::PredicatePair:
      for (const auto& e : op.elements) visitOperand(e, written, visit);
      break;
    default:
      break;
  }
}

}  // namespace

void visitRegisters(const Inst& inst, const std::function<void(ValueReg, bool)>& visit) {
  const auto& ops = inst.operands;
  const bool writes = writesOperand0(inst);
  // wgmma.mma_async accumulates into operand 0: read as well as written.
  if (writes && inst.opcode() == "wgmma") visitOperand(ops[0], false, visit);
  for (size_t k = writes ? 1 : 0; k < ops.size(); ++k) visitOperand(ops[k], false, visit);
  if (inst.guard && inst.guard->reg >= 0) visit(inst.guard->reg, false);
  if (writes) visitOperand(ops[0], true, visit);
}

int64_t typeWidth(std::string_view m) {
  if (m.size() < 2) return 0;
  char c = m[0];
  if (c != 'b' && c != 'u' && c != 's' && c != 'f') return 0;
  int bits = 0;
  for (char d : m.substr(1)) {
    if (d < '0' || d > '9') return 0;
    bits = bits * 10 + (d - '0');
    if (bits > 1024) return 0;
  }
  return bits % 8 == 0 && bits > 0 && bits <= 128 ? bits / 8 : 0;
}

int vectorLength(const ptx::Instruction& instruction) {
  static constexpr std::pair<std::string_view, int> kLengths[] = {{"v2", 2}, {"v4", 4}, {"v8", 8}};
  for (const auto& m : instruction.modifiers)
    for (const auto& [name, length] : kLengths)
      if (m == name) return length;
  return 1;
}

std::vector<ValueReg> writtenRegisters(const Inst& inst) {
  std::vector<ValueReg> written, none;
  if (writesOperand0(inst))
    collect(inst.operands[0], written, none);
  return written;
}

}  // namespace fenceline::model
