// Exclusive modes of a launch: two instructions that sit on opposite outcomes
// of a condition that is the same for every thread of the grid and for the
// whole launch never both run in one launch (issue 34, shape F4).
//
// A kernel parameter often selects one of two protocols (Marlin's
// `use_atomic_add`: the atomic-add reduction or the serial one): the write
// and the signal of one mode and the poll of the other are all in the
// kernel, and a path-insensitive pairing of them makes a hazard that no
// launch runs.
//
// A condition is grid-uniform when it is computed, through instructions
// without memory effect, from immediates, the kernel's parameters
// (`ld.param` of the entry's parameters, or a callee parameter bound to
// such a value by an inlined call), `.const` loads at uniform addresses and
// the launch shape (%nctaid, %ntid); every register on the way has exactly
// one reaching definition (no loop-carried value: a loop counter is uniform
// across threads but changes between trips, so it decides no mode). Never
// the thread or block index, never memory a thread may write.
//
// What holds on a block: the uniform comparisons implied by the branch
// edges that dominate it (model/BranchEdges.h: edgeDominatesBlock), split
// through and/or/not of predicates (`@%p bra` with %p = a || b: on the
// fall-through both are false), and by an instruction's own guard. Two
// instructions are exclusive when one comparison (the same expression; eq
// and ne, lt and ge, gt and le of integers are one comparison and its
// negation) holds true at one and false at the other. Undecided uniformity
// decides nothing.
//
// Block level (exclusiveInBlock): the same for the threads of one block, for
// the whole launch, is enough when one block runs both instructions (a write
// and the signal that publishes it; a wait and the read after it). NCCL's
// network kernels pick a context by the block's position and its backend by a
// byte of a by-value parameter array at that context (issue 35, shapes C and
// U-credit): one backend's write and another's signal never run in one
// block. Block-level values add the block's position (%ctaid, the cluster's)
// and parameters read at an offset computed in a register; a register
// assigned on several paths is one value for the block when it is read
// outside every loop, each definition is block level and every branch between
// the definitions' common dominator and the read tests a block-level
// predicate. Never the thread index. Two blocks may differ: a grid-level
// question (exclusive) ignores these conditions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

class UniformModes {
 public:
  explicit UniformModes(const FunctionModel& fn) : fn_(fn) {}
  // `a` and `b` sit on opposite outcomes of one grid-uniform condition.
  bool exclusive(InstId a, InstId b) const;
  // The same for a condition that only one block's threads share: for two
  // instructions the same block runs (block level, above).
  bool exclusiveInBlock(InstId a, InstId b) const;
  // The comparison that separates them, as text (for evidence), or "".
  std::string separatingCondition(InstId a, InstId b) const;

  // How widely the value of `op` read at `at` is shared: by every thread of
  // the grid (constants, parameters, the launch shape), by the threads of one
  // block for the whole launch (the block's position and values computed
  // from it and grid-wide ones: block level, above), or not known to be
  // shared at all (Thread). The memory model asks it of an address's terms
  // (MemoryAnalysis::blockSlices).
  enum class Level : uint8_t { Grid, Block, Thread };
  Level levelOf(const ptx::Operand& op, InstId at) const;
  // The same for the value the instruction `def` writes.
  Level levelOfDefinition(InstId def) const;

 private:
  struct Fact {
    int key;     // index into keys_
    bool value;  // the comparison's outcome on the way to the block
    bool operator<(const Fact& o) const { return key != o.key ? key < o.key : value < o.value; }
    bool operator==(const Fact& o) const { return key == o.key && value == o.value; }
  };
  const std::vector<Fact>& blockFacts(BlockId block) const;
  const std::vector<Fact>& guardFacts(InstId inst) const;  // implied by the instruction's own guard
  // The key of a comparison that separates a and b, or -1.
  int separatingKey(InstId a, InstId b, bool blockLevel) const;
  // The uniform comparisons implied by predicate `reg` having `value` at `at`.
  void implied(ValueReg reg, InstId at, bool value, int depth, std::vector<Fact>& out) const;
  // A canonical text of a uniform value, or "" when it is not uniform.
  std::string uniformText(const ptx::Operand& op, InstId at, int depth) const;
  std::string definitionText(InstId def, int depth) const;
  // A register with several reaching definitions `defs`, read at `at`, when
  // it is one value for a block (block level, above); else "".
  std::string mergedText(ValueReg reg, InstId at, const std::vector<InstId>& defs, int depth) const;
  int keyOf(const std::string& text) const;

  const FunctionModel& fn_;
  // Asked for every pair the protocol model tests (issue 34): per block and
  // per guarded instruction, once.
  mutable std::vector<std::vector<Fact>> blockFacts_;
  mutable std::vector<char> blockKnown_;
  mutable std::unordered_map<InstId, std::vector<Fact>> guardFacts_;
  mutable std::unordered_map<std::string, int> keyIds_;
  mutable std::vector<std::string> keys_;
  mutable std::vector<char> blockLevelKey_;  // per key: it names a block-level value
  mutable std::unordered_map<InstId, std::string> definitionText_;  // "" when not uniform
  mutable std::unordered_map<uint64_t, std::string> mergedText_;     // per (read, register)
};

}  // namespace fenceline::model
