// Addresses with several definitions, compared choice by choice
// (MemoryAnalysis::blockSlices, Memory.h; issue 34, cuGraph's look-back
// scratch).
//
// The value analysis joins the definitions of a register: a join of two
// pointers of two kinds is unknown. CUB's agents keep their temporary
// storage in shared memory, or, when it does not fit, in the block's slice
// of a global buffer, `vsmem + blockIdx.x * size`, and one register holds
// whichever the launch chose: `cvta.shared` of the shared buffer on one path,
// the slice on the other (or a `selp` of the two). Every access to the
// storage then has an unknown address, and two of them through the same
// register "the same address" for the threads of one block; for a partner in
// another block, nothing was known. Yet every definition names memory of the
// block's own: the CTA's shared window, or the block's slice.
//
// So an address whose value may stand for several definitions is evaluated
// once per definition of each register on its way that has several: the
// operands of a `selp`, the definitions that reach a use (path-precise),
// through `add`, `mov`, `cvta` and integer `cvt`. Each choice over-states
// what the address holds when that definition reaches it; the address holds
// one of them. Two accesses are apart for two blocks when every pair of
// their choices is (a pair in the two windows, or of two slices of one
// stride: slicesOfValues). A few choices at most: past that, or where no
// register on the way has several definitions, the address's own value.
#include <fmt/format.h>

#include <algorithm>

#include "model/Memory.h"
#include "model/ValueAlgebra.h"
#include "model/Values.h"

namespace fenceline::model {

struct MemoryAnalysis::ChoiceTable {
  std::unordered_map<uint64_t, std::vector<AbstractValue>> byOperand;
};

namespace {

constexpr size_t kMaxChoices = 4;
constexpr int kMaxDepth = 8;

using Kind = ptx::Operand::Kind;

void addChoice(std::vector<AbstractValue>& out, AbstractValue v) {
  if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(std::move(v));
}

// The choices of registers read at one instruction, one list per question;
// an empty list: too many (the caller falls back to the analysis's value).
class Choices {
 public:
  explicit Choices(const FunctionModel& fn) : fn_(fn), values_(*fn.values) {}

  std::vector<AbstractValue> ofRegister(ValueReg reg, InstId at, int depth) {
    const std::vector<InstId> defs = values_.reachingDefinitions(reg, at);
    if (defs.empty() || defs.size() > kMaxChoices || depth >= kMaxDepth) return {values_.valueOf(reg, at)};
    std::vector<AbstractValue> out;
    for (InstId d : defs) {
      for (AbstractValue& v : ofDefinition(d, depth + 1)) addChoice(out, std::move(v));
      if (out.size() > kMaxChoices) return {values_.valueOf(reg, at)};
    }
    return out;
  }

 private:
  // The value definition `d` writes: the analysis's, or, when that may
  // stand for several definitions on the way, one per choice.
  std::vector<AbstractValue> ofDefinition(InstId d, int depth) {
    AbstractValue own = values_.valueWrittenBy(d);
    if (!MemoryAnalysis::mayHaveChoices(own)) return {own};
    const Inst& inst = fn_.instructions[d];
    const std::string_view op = inst.opcode();
    std::vector<AbstractValue> out;
    if (op == "selp" && inst.operands.size() >= 3) {
      for (int k = 1; k <= 2; ++k)
        for (AbstractValue& v : ofOperand(d, k, depth)) addChoice(out, std::move(v));
    } else if (op == "add" && inst.operands.size() >= 3 && isIntegerAdd(inst)) {
      const std::vector<AbstractValue> x = ofOperand(d, 1, depth), y = ofOperand(d, 2, depth);
      if (x.size() * y.size() > kMaxChoices) return {own};
      for (const AbstractValue& a : x)
        for (const AbstractValue& b : y) addChoice(out, values::add(a, b, "def:" + std::to_string(d)));
    } else if ((op == "mov" || op == "cvta" || (op == "cvt" && isWidening(inst))) && inst.operands.size() >= 2) {
      const Space space = op == "cvta" ? cvtaSpace(inst) : Space::None;
      for (AbstractValue v : ofOperand(d, 1, depth)) {
        if (op == "cvta" && v.known) v.space = space;
        if (op == "cvta" && !v.known) return {own};
        addChoice(out, std::move(v));
      }
    } else {
      return {own};
    }
    if (out.empty() || out.size() > kMaxChoices) return {own};
    return out;
  }

  std::vector<AbstractValue> ofOperand(InstId d, int k, int depth) {
    const ptx::Operand& operand = fn_.instructions[d].operands[k];
    if (operand.kind == Kind::Register) return ofRegister(operand.reg, d, depth);
    return {values_.operandValue(d, k)};
  }

  static bool isIntegerAdd(const Inst& inst) {
    return !inst.hasModifier("f32") && !inst.hasModifier("f64") && !inst.hasModifier("f16") &&
           !inst.hasModifier("bf16") && !inst.hasModifier("f16x2");
  }
  // An integer conversion that keeps the value (`cvt.u64.u32` of a shared
  // address): the value analysis's own rule for cvt.
  static bool isWidening(const Inst& inst) {
    for (std::string_view f : {"f16", "f32", "f64", "bf16", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "sat"})
      if (inst.hasModifier(f)) return false;
    return true;
  }
  // The space the value of a `cvta` points into, as the value analysis says.
  static Space cvtaSpace(const Inst& inst) {
    if (inst.hasModifier("shared") || inst.hasModifier("shared::cta")) return Space::SharedCta;
    if (inst.hasModifier("shared::cluster")) return Space::SharedCluster;
    if (inst.hasModifier("global")) return Space::Global;
    if (inst.hasModifier("local")) return Space::Local;
    if (inst.hasModifier("const")) return Space::Const;
    if (inst.hasModifier("param")) return Space::Param;
    return Space::Generic;
  }

  const FunctionModel& fn_;
  const ValueAnalysis& values_;
};

}  // namespace

// Unknown (a join of pointers of two kinds), or carrying a join's term or an
// opaque one (an offset added to such a join: `add %rd8, %rd105, 24`).
bool MemoryAnalysis::mayHaveChoices(const AbstractValue& v) {
  return !v.known || std::any_of(v.terms.begin(), v.terms.end(), [](const AbstractValue::Term& t) {
    return t.name.starts_with("join:") || t.name.starts_with("def:");
  });
}

const std::vector<AbstractValue>& MemoryAnalysis::addressChoices(InstId inst, int operand) const {
  if (!choices_) choices_ = std::make_shared<ChoiceTable>();
  const uint64_t key = (uint64_t(uint32_t(inst)) << 8) | uint8_t(operand);
  auto [slot, added] = choices_->byOperand.try_emplace(key);
  if (!added) return slot->second;
  std::vector<AbstractValue>& out = slot->second;
  const auto& operands = fn_.instructions[inst].operands;
  const ptx::Operand* op = operand >= 0 && static_cast<size_t>(operand) < operands.size() ? &operands[operand] : nullptr;
  if (fn_.values && op && op->kind == Kind::Address && op->base.kind == Kind::Register) {
    Choices choices(fn_);
    for (const AbstractValue& base : choices.ofRegister(op->base.reg, inst, 0)) {
      AbstractValue v = op->offset ? values::add(base, values::constant(op->offset), "addr:" + std::to_string(inst)) : base;
      addChoice(out, narrowedAt(inst, std::move(v)));
    }
  }
  if (out.size() <= 1) out = {narrowedValue(inst, operand)};
  return out;
}

MemoryAnalysis::BlockSlices MemoryAnalysis::slicesOfChoices(InstId a, int oa, InstId b, int ob, bool window,
                                                            bool withDetail) const {
  const std::vector<AbstractValue>&ca = addressChoices(a, oa), &cb = addressChoices(b, ob);
  const int64_t sizeA = accessSize(a, oa), sizeB = accessSize(b, ob);
  if (ca.size() == 1 && cb.size() == 1) return slicesOfValues(ca[0], sizeA, cb[0], sizeB, window, withDetail);
  BlockSlices undecided;
  for (const AbstractValue& x : ca)
    for (const AbstractValue& y : cb) {
      BlockSlices pair = slicesOfValues(x, sizeA, y, sizeB, window, withDetail);
      if (pair.kind == BlockSlices::Kind::None) return pair;
      if (pair.kind == BlockSlices::Kind::Undecided && undecided.kind == BlockSlices::Kind::None)
        undecided = std::move(pair);
    }
  if (undecided.kind == BlockSlices::Kind::Undecided) {
    if (withDetail) undecided.detail = "for one choice of the addresses' definitions, " + undecided.detail;
    return undecided;
  }
  BlockSlices out;
  out.kind = BlockSlices::Kind::Apart;
  if (withDetail) {
    auto list = [](const std::vector<AbstractValue>& values) {
      std::string s;
      for (const AbstractValue& v : values) s += (s.empty() ? "" : " or ") + v.toString();
      return s;
    };
    out.detail = fmt::format("every definition of the addresses names the block's own memory ({}; {}): a partner "
                             "in another block touches its own",
                             list(ca), list(cb));
  }
  return out;
}

}  // namespace fenceline::model
