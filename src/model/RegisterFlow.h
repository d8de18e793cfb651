// Register data flow for the protocol checks: which instructions write a
// register, which of them reach a given use, and two symbolic views of a
// value built by walking those definitions backwards:
//  - a key: a canonical text of how the value is computed ("param:p0+8",
//    "add(%ctaid.x,4)"), equal for two uses that compute the same thing, so
//    two addresses with equal keys name the same word for every thread;
//  - a root: the object a pointer points into ("param:p0", "sym:bar",
//    "loaded(param:p1)" for a pointer read from the array param p1 points to).
// nvcc's PTX is nearly single-assignment (loop-carried values are reassigned
// by a `mov` at the latch), which keeps the walks short.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// The registers an instruction writes, reads as data, and uses to form
// addresses (the base registers of `[...]` operands).
struct RegisterUse {
  std::vector<ValueReg> written;
  std::vector<ValueReg> read;
  std::vector<ValueReg> addressed;
};
RegisterUse registerUse(const Inst& inst);

class RegisterFlow {
 public:
  explicit RegisterFlow(const FunctionModel& fn);

  const FunctionModel& function() const { return fn_; }
  const std::vector<InstId>& definitions(ValueReg reg) const;
  // The definitions of `reg` that reach its use at `at` (a backward walk over
  // the CFG that stops at the nearest definition on each path). A register
  // used before any definition (a parameter of a .func body that was not
  // inlined) has none.
  std::vector<InstId> reachingDefinitions(ValueReg reg, InstId at) const;

  // Canonical text of the value of `reg` at `at` (see above). Values the walk
  // cannot name (loads, atomics, merges of different definitions) become
  // opaque names unique to their definition: "rmw@40", "phi@7:3"; a load is
  // named by its address: "load([param:p1+8])".
  std::string key(ValueReg reg, InstId at) const;
  std::string operandKey(InstId at, int operand) const;
  // Key of an address operand, offset included; empty when not an address.
  std::string addressKey(InstId at, int operand) const;
  // The object an address operand points into, or empty when unknown.
  std::string addressRoot(InstId at, int operand) const;
  // The address was read from memory (a pointer table: peer pointers).
  bool isLoadedPointer(InstId at, int operand) const;

  // Both instructions' memory operands (MemoryEffect::address) name the same
  // word for every thread: equal address keys.
  bool sameAddress(InstId a, InstId b) const;
  // Same root object (offsets may differ), or either root is unknown.
  bool mayShareObject(InstId a, InstId b) const;

 private:
  std::string keyOf(ValueReg reg, InstId at, int depth) const;
  std::string keyOfDefinition(InstId definition, int depth) const;
  std::string computeKeyOfDefinition(InstId definition, int depth) const;
  std::string rootOfDefinition(InstId definition, int depth) const;
  std::string computeRootOfDefinition(InstId definition, int depth) const;
  std::vector<InstId> computeReaching(ValueReg reg, InstId at) const;
  std::string keyOfOperand(const ptx::Operand& op, InstId at, int depth) const;
  std::string rootOf(ValueReg reg, InstId at, int depth) const;
  std::string rootOfAddress(const ptx::Operand& address, InstId at, int depth) const;

  const FunctionModel& fn_;
  std::vector<std::vector<InstId>> definitions_;
  // Memoized walks; a definition met again while its own key is being built
  // is a loop-carried cycle.
  mutable std::unordered_map<uint64_t, std::vector<InstId>> reachingCache_;
  mutable std::unordered_map<InstId, std::string> keyCache_, rootCache_;
  mutable std::unordered_set<InstId> inProgress_, rootsInProgress_;
};

}  // namespace fenceline::model
