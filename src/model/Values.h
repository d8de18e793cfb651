// Value analysis: what each register may hold where it is used. Two views of
// one value, behind one interface:
//  - an AbstractValue (base object + affine terms with ranges + constant):
//    which memory object an address points into and which offsets it may
//    take; bounded loop counters (stage indices) keep their ranges;
//  - an identity (ValueIdentity.h, internal): do two uses compute the same
//    value for every thread (the same flag word, the same threshold)?
// The memory questions (which bytes an access touches, may two accesses
// alias) are MemoryAnalysis's (Memory.h), built on these answers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/Program.h"
#include "model/SharedText.h"

namespace fenceline::model {

namespace detail {
class ValueIdentity;
}

// An abstract value: base + sum(coef * term) + constant.
// base is a memory object (shared symbol, kernel param pointer, global symbol)
// or none; terms are special registers, loop counters, or opaque registers.
struct AbstractValue {
  // Loaded: a pointer read from memory (a struct field, a pointer table
  // entry); `base` is then the identity of the address it was loaded from.
  enum class BaseKind { None, SharedSymbol, GlobalSymbol, Param, Unknown, Loaded };
  BaseKind baseKind = BaseKind::None;
  SharedText base;          // symbol or param name (or the loaded-from address); shared by copies
  // A choice between pointers into different objects of one kind (`selp` of
  // two parameter fields, a merge of two tables): the value points into one
  // of these (sorted, at least two); `base` is then their names joined by
  // '|', so that equal choices compare equal wherever bases are compared.
  SharedTexts alternatives;  // shared by copies
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
  // The numbers the value may take: its offset range when it has no base (an
  // address has only offsets from a base whose number is unknown).
  std::optional<std::pair<int64_t, int64_t>> numericRange() const {
    return hasBase() ? std::nullopt : offsetRange();
  }
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
  // The value instruction `d` writes to its operand-0 register (one
  // definition's value, wherever it is used; top when `d` writes none).
  AbstractValue valueWrittenBy(InstId d) const;
  // operandValue, computed once per operand and kept for the analysis's
  // lifetime (the reference stays valid): the memory and protocol models ask
  // for the same address operands for every pair of accesses. Equal to
  // operandValue's answer at the time of the call (a value kept before the
  // analysis fell back to its simple mode is not returned after it).
  const AbstractValue& keptOperandValue(InstId at, int operand) const;
  // The state space an address operand reaches (Generic narrowed where the
  // value analysis can prove it; cvta.to.shared / shared symbols -> SharedCta).
  Space addressSpace(InstId at, int operand) const;
  // The definition of `reg` that reaches a use at `at`: the nearest earlier
  // one in the same block, else the only definition; -1 when several reach
  // (loop-carried or assigned on several paths) or none does.
  InstId definition(ValueReg reg, InstId at) const;
  // Every instruction that writes `reg`, in program order.
  const std::vector<InstId>& definitions(ValueReg reg) const;

  // --- Identity: the same value for every thread ---
  // The definitions of `reg` that reach its use at `at` (path-precise).
  std::vector<InstId> reachingDefinitions(ValueReg reg, InstId at) const;
  bool sameValue(InstId a, int operandA, InstId b, int operandB) const;
  // Equal ids: equal values (for sets and maps of values); -1 when unknown.
  int32_t identity(InstId at, int operand) const;
  std::optional<int64_t> constantOf(InstId at, int operand) const;
  // A negative constant or a negation: an atomic add of it takes arrivals back.
  bool isNegation(InstId at, int operand) const;
  // Built only from constants, parameters and special registers: the same on
  // every trip of every loop (a fixed barrier threshold).
  bool isInvariant(InstId at, int operand) const;
  // Computed from the value an atomic returned (a phase bit of one's own arrival).
  bool readsAtomicResult(InstId at, int operand) const;
  // Which identity registers a value is made of: %tid.* / %ctaid.* directly,
  // or an or() of them (the block-election test `(tid.x | tid.y) == 0`).
  struct Identities {
    bool thread = false;
    bool block = false;
  };
  Identities identitiesNamed(InstId at, int operand) const;
  // The value (an address) goes through a merge of several definitions: it
  // may differ from trip to trip (a per-tile lock in a persistent loop).
  bool isMerged(InstId at, int operand) const;
  // The value is the special register `name` itself ("%cluster_ctarank").
  bool isSpecialRegister(InstId at, int operand, std::string_view name) const;

  // The term's variable is at least %nctaid.<dim> for every thread: the
  // register itself, or a loop counter that starts there or beyond and only
  // grows (`for (s = blockIdx.x + gridDim.x; s < N; s += gridDim.x)`, the
  // slots of the blocks not in this launch). So it exceeds every block's
  // %ctaid.<dim> (32-bit wrap-around is not modelled, as elsewhere).
  bool atLeastGridSize(std::string_view termName, char dim) const;

  // The load that read a Loaded base's pointer (its name, AbstractValue::base,
  // as a value of this analysis gave it), or -1.
  InstId pointerLoad(const std::string& loadedBase) const;

  // For MemoryAnalysis: the identity engine and the symbol lookup.
  const detail::ValueIdentity& identityEngine() const;
  const ptx::Variable* variable(InstId at, const std::string& symbol) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

// The range a special register takes in `function` (%tid.x: [0, 1023], or
// below the .reqntid / .maxntid it declares).
std::pair<int64_t, int64_t> specialRegisterRange(const std::string& name, const ptx::Function* function);

}  // namespace fenceline::model
