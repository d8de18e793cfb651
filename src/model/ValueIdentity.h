// Value identity, internal to the value analysis (Values.h is the
// interface): when do two uses compute the same value for every thread?
// Each value gets a canonical form built by walking its reaching definitions
// backwards ("param:p0+8": parameter p0's value plus 8; "param:s@8": the
// value of byte 8 of parameter s; "add(%ctaid.x,4)", "load([param:p1+8])"); two
// uses with equal forms compute the same thing, so two addresses with equal
// forms name the same word. A pointer's root is the object it points into
// ("param:p0", "sym:bar", or the form of the address a pointer was loaded
// from). nvcc's PTX is nearly single-assignment (loop-carried values are
// reassigned by a `mov` at the latch), which keeps the walks short.
//
// The forms are strings only inside the model: ValueAnalysis and
// MemoryAnalysis turn them into typed answers (sameValue, identity ids,
// memory objects); checks never see them.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/Program.h"

namespace fenceline::model::detail {

class ValueIdentity {
 public:
  // definitions: per register, the instructions that write it (Operands.h).
  ValueIdentity(const FunctionModel& fn, const std::vector<std::vector<InstId>>& definitions);
  const FunctionModel& function() const { return fn_; }
  const std::vector<InstId>& definitions(ValueReg reg) const;
  // The definitions of `reg` that reach its use at `at` (a backward walk over
  // the CFG that stops at the nearest definition on each path). A register
  // used before any definition (a parameter of a .func body that was not
  // inlined) has none.
  // The answer is memoized: the reference stays valid as long as this object.
  const std::vector<InstId>& reachingDefinitions(ValueReg reg, InstId at) const;

  // Canonical text of the value of `reg` at `at` (see above). Values the walk
  // cannot name (loads, atomics, merges of different definitions) become
  // opaque names unique to their definition: "rmw@40", "phi@7:3"; a load is
  // named by its address: "load([param:p1+8])".
  std::string operandKey(InstId at, int operand) const;
  // Key of an address operand, offset included; empty when not an address.
  std::string addressKey(InstId at, int operand) const;
  // The object an address operand points into, or empty when unknown.
  // Memoized per (instruction, operand): the reference stays valid as long
  // as this object (the protocol model asks it for every pair it compares).
  const std::string& addressRoot(InstId at, int operand) const;
  // The address was read from memory (a pointer table: peer pointers).
  bool isLoadedPointer(InstId at, int operand) const;

  // Both instructions' memory operands (MemoryEffect::address) name the same
  // word for every thread: equal address keys.
  // (Memoized per instruction: an id of its address key; the protocol model
  // asks it for many pairs.)
  bool sameAddress(InstId a, InstId b) const;
  // Same root object (offsets may differ), or either root is unknown.
  // (Compared by addressRootIdentity: asked for many pairs.)
  bool mayShareObject(InstId a, InstId b) const;
  // A small integer per distinct addressRoot of the instruction's memory
  // address operand, kept per instruction; -1 when the root is unknown.
  int32_t addressRootIdentity(InstId at) const;

  // Facts read off the forms (ValueAnalysis exposes them).
  std::optional<int64_t> constantOf(InstId at, int operand) const;
  bool isConstant(InstId at, int operand) const;
  bool isNegation(InstId at, int operand) const;   // a negative constant or neg(...)
  bool isInvariant(InstId at, int operand) const;  // built from constants, params and specials only
  bool isMergedAddress(InstId at, int operand) const;  // an address through a merge of definitions
  struct Identities {
    bool thread = false;  // names %tid.* (or an or() of ids including one)
    bool block = false;   // names %ctaid.*
  };
  Identities identitiesNamed(InstId at, int operand) const;
  bool readsAtomicResult(InstId at, int operand) const;
  bool isSpecialRegister(InstId at, int operand, std::string_view name) const;  // computed from an atomic's returned value
  // A small integer per distinct form (equal ids: equal values); -1 when none.
  int32_t identity(InstId at, int operand) const;
  // identity() of the instruction's memory address operand (its address key,
  // offset included), kept per instruction; -1 when it has none.
  int32_t addressIdentity(InstId at) const;

 private:
  // Memoized (the reference stays valid as long as this object).
  const std::string& keyOf(ValueReg reg, InstId at, int depth) const;
  // Both memoized: the references stay valid as long as this object.
  const std::string& keyOfDefinition(InstId definition, int depth) const;
  std::string computeKeyOfDefinition(InstId definition, int depth) const;
  const std::string& rootOfDefinition(InstId definition, int depth) const;
  std::string computeRootOfDefinition(InstId definition, int depth) const;
  std::vector<InstId> computeReaching(ValueReg reg, InstId at) const;
  // `defs` is one unconditional definition that dominates `at`.
  bool isOnlyDefinitionBefore(const std::vector<InstId>& defs, InstId at) const;
  std::string keyOfOperand(const ptx::Operand& op, InstId at, int depth) const;
  // keyOfOperand as a view: of a memoized key, or of `storage`, which holds it.
  std::string_view keyViewOfOperand(const ptx::Operand& op, InstId at, int depth, std::string& storage) const;
  std::string rootOf(ValueReg reg, InstId at, int depth) const;
  // A long key as a short name of its own, `storage` holding it (see the .cpp).
  std::string_view shortForm(std::string_view key, std::string& storage) const;
  std::string rootOfAddress(const ptx::Operand& address, InstId at, int depth) const;
  std::string parameterField(InstId load, int depth) const;
  std::string parameterOf(InstId load, int depth) const;
  // Marks walk `walk` (kBuildingKey, kBuildingRoot) as running for d; false when it already is.
  static constexpr uint8_t kBuildingKey = 1, kBuildingRoot = 2;
  // `d` is `reg = reg + x` (or `- x`) stepping from definitions of `defs`.
  bool stepsOwnValue(InstId d, ValueReg reg, const std::vector<InstId>& defs) const;
  bool enter(InstId d, uint8_t walk) const;
  void leave(InstId d, uint8_t walk) const;

  const FunctionModel& fn_;
  const std::vector<std::vector<InstId>>& definitions_;
  // Memoized walks; a definition met again while its own key is being built
  // is a loop-carried cycle.
  mutable std::unordered_map<uint64_t, std::vector<InstId>> reachingCache_;
  mutable std::unordered_map<InstId, std::string> keyCache_, rootCache_, cycleNames_;
  mutable std::unordered_map<uint64_t, std::string> addressRoots_;  // addressRoot, by at << 32 | operand
  // keyOf's names of merges and depth-limited walks, by use (reg << 32 | at),
  // and of registers without definitions: memoized so keyOf hands out references.
  mutable std::unordered_map<uint64_t, std::string> phiNames_, depthNames_;
  mutable std::unordered_map<ValueReg, std::string> undefinedNames_;
  // Per instruction: its key (bit 0) or root (bit 1) is being built.
  mutable std::vector<uint8_t> inProgress_;
  mutable std::unordered_map<std::string, int32_t> interned_;
  template <typename Text>
  int32_t addressId(std::vector<int32_t>& ids, std::unordered_map<std::string, int32_t>& numbers, InstId at,
                    Text text) const;
  mutable std::vector<int32_t> addressIds_;  // addressIdentity + 2; 0: not asked yet
  mutable std::unordered_map<std::string, int32_t> internedRoots_;
  mutable std::vector<int32_t> rootIds_;  // addressRootIdentity + 2; 0: not asked yet
  // The ids of long keys' symbolic parts (shortForm).
  mutable std::unordered_map<std::string, int32_t> shortIds_;
  // computeReaching's work list and visited blocks, reused between walks.
  mutable std::vector<char> walkSeen_;
  mutable std::vector<BlockId> walkWork_;
};

}  // namespace fenceline::model::detail
