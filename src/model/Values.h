// Value analysis: what each register may hold, as a small symbolic form.
// Answers the questions checks ask: may these two addresses alias; which
// address space a generic pointer reaches; does a value depend on the thread
// identity (for election predicates); is a value a kernel parameter.
#pragma once

#include <cstdint>
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
    std::string name;       // "%tid.x", "loop:<reg>@<id>", "def:<inst>", "join:<inst>"
    int64_t coefficient = 1;
    // Range of the term's variable (not multiplied by the coefficient), when
    // known: %laneid in [0, 31], `x & 24` in [0, 24], `x % 32` in [0, 31].
    int64_t low = INT64_MIN;
    int64_t high = INT64_MAX;
    bool bounded() const { return low != INT64_MIN && high != INT64_MAX; }
  };
  std::vector<Term> terms;  // sorted by name
  bool known = false;       // false = top (anything)
  bool isConstant() const { return known && baseKind == BaseKind::None && terms.empty(); }
  bool hasBase() const { return baseKind != BaseKind::None; }
  // Bounds of constant + sum(terms) (the offset from base), when every term is bounded.
  std::optional<std::pair<int64_t, int64_t>> offsetRange() const;
  bool operator==(const AbstractValue&) const;
  std::string toString() const;  // "shared:buf + 8*%tid.x + 16", for tests and debugging
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
  // The definition of `reg` that reaches a use at `at`: the nearest earlier
  // one in the same block, else the only definition; -1 when several reach
  // (loop-carried or assigned on several paths) or none does.
  InstId definition(ValueReg reg, InstId at) const;
  // Every instruction that writes `reg`, in program order.
  const std::vector<InstId>& definitions(ValueReg reg) const;
  // Bytes accessed through an address operand (from .v4.b32, the size operand
  // of a copy, 8 for mbarriers); -1 when unknown.
  int64_t accessSize(InstId at, int operand) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace fenceline::model
