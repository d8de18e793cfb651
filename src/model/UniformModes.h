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
// (`ld.param` of the entry's parameters, at a symbol or through a register
// holding an address in them: as uniform as that address; or a callee
// parameter bound to such a value by an inlined call), `.const` loads at
// uniform addresses and
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
// and parameters read at an offset computed from it in a register; a register
// assigned on several paths is one value for the block when it is read
// outside every loop, each definition is block level and every branch between
// the definitions' common dominator and the read tests a block-level
// predicate. Never the thread index. Two blocks may differ: a grid-level
// question (exclusive) ignores these conditions.
//
// Thread level (issue 34, NCCL's outbox copy): values the same for one
// thread for its whole life add the thread's index (%tid, %laneid) to the
// block level, and a register whose one reaching definition runs at most once
// per thread (unguarded, on no cycle of the control flow: `once@<def>`),
// whatever it computes: every read that definition alone reaches sees the one
// value it wrote. Never a value read again (a second load is a second
// definition), never a value carried around a loop. A thread-level comparison
// decides no pair of instructions (two threads of a block differ), but it
// decides which paths one thread takes: a comparison that held on the way to
// an instruction holds on every edge that thread ever takes. So the
// definitions of a register read there are those that reach it in the control
// flow without the edges on which one of the instruction's comparisons (at
// any level) is decided the other way (UniformModesPaths.cpp): a per-warp copy
// of a mode, zeroed on the warps that skip a stage, is the mode itself where
// the stage's test is repeated, through another register, in front of the
// read. Comparisons are matched by value, not by register: the same canonical
// text, `a < b` one key with `a >= b` (its negation) and `b > a` (swapped),
// `a == b` with `b != a`.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
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
  // Launch-uniform predicates (issue 34, shape P6): `inst` runs only in a
  // launch of one block. The comparisons that hold at it (its blocks' branch
  // edges and its own guard, as for exclusive) say %nctaid.d == 1 (or
  // %nctaid.d < 2, !(1 < %nctaid.d)) for every dimension d in which the
  // function tells blocks apart (reads %ctaid.d, %nctaid.d or a cluster
  // register of d; %cluster_ctarank counts for all three), and for one at
  // least. A dimension the function never reads is one block wide, as
  // MemoryAnalysis::blockSlices and barrier-init-race's "one block" take it.
  // Such an instruction has no other block of its launch to race with:
  // Eigen's FullReductionKernel stores the output's initial value with a
  // plain store when gridDim.x == 1 and through a semaphore otherwise.
  bool singleBlockLaunch(InstId inst) const;
  // The one block whose threads run `inst`, where its guards pin the block
  // position (model/PinnedBlock.h: `((tid >> 4) | blockIdx.x) == 0`), kept
  // per instruction; nothing otherwise.
  std::optional<std::array<int64_t, 3>> pinnedBlock(InstId inst) const;

  // How widely the value of `op` read at `at` is shared: by every thread of
  // the grid (constants, parameters, the launch shape), by the threads of one
  // block for the whole launch (the block's position and values computed
  // from it and grid-wide ones: block level, above), or not known to be
  // shared at all (Thread). The memory model asks it of an address's terms
  // (MemoryAnalysis::blockSlices).
  // (Ordered: a narrower level compares greater.)
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
  // The key of a comparison, up to `level`, that separates a and b, or -1.
  int separatingKey(InstId a, InstId b, Level level) const;
  // The uniform comparisons implied by predicate `reg` having `value` at `at`.
  void implied(ValueReg reg, InstId at, bool value, int depth, std::vector<Fact>& out) const;
  // A canonical text of a uniform value, or "" when it is not uniform.
  std::string uniformText(const ptx::Operand& op, InstId at, int depth) const;
  std::string definitionText(InstId def, int depth) const;
  // A register with several reaching definitions `defs`, read at `at`, when
  // it is one value for a block (block level, above); else "".
  std::string mergedText(ValueReg reg, InstId at, const std::vector<InstId>& defs, int depth) const;
  int keyOf(const std::string& text) const;
  // `name` is a parameter of the entry being checked.
  bool isKernelParameter(std::string_view name) const;

  // Paths a thread takes (UniformModesPaths.cpp). Of `defs` (the reaching
  // definitions of `reg` at `at`), those that still reach `at` when the edges
  // that contradict the facts of block `root` are left out; `defs` itself when
  // nothing is known there or the work bound is spent.
  std::vector<InstId> feasibleDefinitions(ValueReg reg, InstId at, const std::vector<InstId>& defs,
                                          BlockId root) const;
  // `def` runs at most once per thread: unguarded, on no cycle of the control flow.
  bool runsOnce(InstId def) const;
  // The facts of the edge from -> to, without paths pruned (cached).
  const std::vector<Fact>& edgeFacts(BlockId from, BlockId to) const;
  // The edge from -> to is never taken by a thread that holds `facts`.
  bool contradicts(BlockId from, BlockId to, const std::vector<Fact>& facts) const;
  // Blocks a thread holding the facts of `root` can reach from the entry (cached per root).
  const std::vector<char>& feasibleBlocks(BlockId root) const;

  const FunctionModel& fn_;
  // Asked for every pair the protocol model tests (issue 34): per block and
  // per guarded instruction, once.
  mutable std::vector<std::vector<Fact>> blockFacts_;
  mutable std::vector<char> blockKnown_;
  mutable std::unordered_map<InstId, std::vector<Fact>> guardFacts_;
  mutable std::unordered_map<std::string, int> keyIds_;
  mutable std::vector<std::string> keys_;
  mutable std::vector<Level> keyLevel_;  // per key: the narrowest level it names
  // The block whose facts prune paths while texts are computed (-1: none):
  // set by blockFacts and guardFacts around the question they ask.
  mutable BlockId root_ = -1;
  // Counts definitions dropped by pruned paths: a text computed while it
  // grows holds only under root_'s facts and is cached per root.
  mutable int64_t pruned_ = 0;
  // Per (root, definition): the text, and whether it rests on pruned paths.
  mutable std::unordered_map<uint64_t, std::pair<std::string, bool>> contextText_;
  mutable std::unordered_map<uint64_t, std::vector<Fact>> edgeFacts_;  // per (from, to)
  mutable std::unordered_map<BlockId, std::vector<char>> feasibleBlocks_;
  mutable std::map<std::tuple<BlockId, InstId, ValueReg>, std::vector<InstId>> feasibleDefs_;
  mutable int64_t pathWork_ = 0;  // blocks the pruning walks may still visit
  mutable bool pathWorkSet_ = false;
  mutable std::vector<char> inCycle_;  // per block, for runsOnce
  mutable std::unordered_map<InstId, std::string> definitionText_;  // for every thread; "" when not uniform
  mutable std::unordered_map<uint64_t, std::string> mergedText_;     // per (read, register)
  mutable int readDimensions_ = -1;  // model::blockDimensionsRead, once
  mutable std::unordered_map<InstId, std::optional<std::array<int64_t, 3>>> pinnedBlock_;
};

}  // namespace fenceline::model
