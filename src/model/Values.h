// Value analysis: what each register may hold, as a small symbolic form.
// Answers the questions checks ask: may these two addresses alias; which
// address space a generic pointer reaches; does a value depend on the thread
// identity (for election predicates); is a value a kernel parameter.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// An abstract value: base + sum(coef * term) + constant.
// base is a memory object (shared symbol, kernel param pointer, global symbol)
// or none; terms are special registers, loop counters, or opaque registers.
struct AbstractValue {
  enum class BaseKind { None, SharedSymbol, GlobalSymbol, Param, Unknown };
  BaseKind baseKind = BaseKind::None;
  std::string base;         // symbol or param name
  Space space = Space::None;  // what space the value points into, when a pointer
  int64_t constant = 0;
  struct Term {
    std::string name;       // "%tid.x", "loop:<reg>", "reg:<id>", ...
    int64_t coefficient = 1;
  };
  std::vector<Term> terms;  // sorted by name
  bool known = false;       // false = top (anything)
  bool isConstant() const { return known && baseKind == BaseKind::None && terms.empty(); }
};

class ValueAnalysis {
 public:
  explicit ValueAnalysis(const FunctionModel& fn);
  // The value of register `reg` as used at instruction `at`.
  AbstractValue valueOf(ValueReg reg, InstId at) const;
  // The value of operand `operand` of instruction `at` (for Address: base + offset).
  AbstractValue operandValue(InstId at, int operand) const;
  // The state space an address operand reaches (Generic narrowed where the
  // value analysis can prove it; cvta.to.shared / shared symbols -> SharedCta).
  Space addressSpace(InstId at, int operand) const;
  // Conservative: false only when the two addresses are provably different
  // objects or provably different offsets of the same object for every thread.
  bool mayAlias(InstId a, int operandA, InstId b, int operandB) const;
  // Same object (same base symbol/param), offsets possibly different.
  bool sameObject(InstId a, int operandA, InstId b, int operandB) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace fenceline::model
