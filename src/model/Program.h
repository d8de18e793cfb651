// The program model the checks query: per kernel (and per .func), the
// instructions with `.func` calls inlined, their memory effects, basic blocks,
// CFG, dominators, post-dominators, loops, values, memory and thread roles.
//
// Calls to `.func` with a body are inlined (up to a depth limit; recursion and
// calls through pointers are summarized as an opaque Call with unknown effects),
// so a hazard split across a `noinline` helper is seen as one flat body. Each
// inlined instruction remembers its call sites, so its source location chain
// runs through the PTX `call`.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/Limits.h"
#include "model/MemoryEffect.h"
#include "ptx/Ast.h"

namespace fenceline::model {

using InstId = int32_t;   // index into FunctionModel::instructions
using BlockId = int32_t;  // index into FunctionModel::blocks
using ValueReg = int32_t; // register id in FunctionModel's register space (after inlining)

// One frame of a source location: file path, line, column, function name.
struct SourceFrame {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string function;  // demangled when possible, else as in the PTX
};

struct Inst {
  const ptx::Instruction* syntax = nullptr;  // the parsed instruction (operands not remapped)
  const ptx::Function* origin = nullptr;     // function whose body holds `syntax`
  // Operands with registers renumbered into this FunctionModel's register space
  // (callee registers get fresh ids when inlined); labels are resolved to blocks.
  // The syntax's own operands where that changes nothing (the function's own
  // body before any call is inlined: the parser numbers registers as the model
  // does, ptx/BodyParser.cpp), else a copy in FunctionModel::remappedOperands.
  std::span<const ptx::Operand> operands;
  std::optional<ptx::Guard> guard;           // remapped
  MemoryEffect effect;
  InstId callSite = -1;                      // the `call` this was inlined through, or -1
  BlockId block = -1;
  // Parameter passing through an inlined call: for an `ld.param` that reads a
  // callee parameter (inside the inlined body) or a return value (in the
  // caller, after the call), the `st.param` whose operand 1 holds the value.
  // Also a load of a local-memory slot that one store wrote and nothing else
  // can reach (LocalSlots.cpp): that store.
  InstId boundStore = -1;
  int32_t inlineDepth = 0;                   // 0 = the function's own body
  // writesFirstOperand(*syntax), found on first use (model/Operands.cpp):
  // -1 not yet, else 0 / 1. Every register walk asks it of every instruction.
  mutable int8_t writesOperand0 = -1;
  // A call left as a call, its callee synchronization-free (model/CallSummaries.h):
  // no memory effect, its reads not followed.
  bool summarizedCall = false;

  std::string_view opcode() const { return syntax->opcode; }
  bool hasModifier(std::string_view m) const { return syntax->hasModifier(m); }
};

struct BasicBlock {
  InstId first = 0;  // [first, last) in FunctionModel::instructions
  InstId last = 0;
  std::vector<BlockId> successors;
  std::vector<BlockId> predecessors;
};

struct Loop {
  BlockId header = -1;
  std::vector<BlockId> blocks;     // including the header
  std::vector<BlockId> exits;      // blocks outside the loop reached from inside
  std::vector<BlockId> latches;    // blocks with a back edge to the header
  int32_t parent = -1;             // enclosing loop index, or -1
};

class ValueAnalysis;   // model/Values.h
class MemoryAnalysis;  // model/Memory.h
class ThreadRoles;     // model/ThreadRoles.h
class ProtocolModel;   // model/Protocol.h
class BlockReachability;  // model/BlockReachability.h
namespace handoff {
class HandOffAnalysis;   // model/HandOffs.h
}

// Answers of model/GuardedRanges.h's dominator walk, per (block, index
// register, incoming range); filled lazily by the queries.
struct GuardedRangeMemo {
  struct Key {
    BlockId block;
    uint8_t name;
    int64_t low, high;
    bool operator==(const Key& o) const {
      return block == o.block && name == o.name && low == o.low && high == o.high;
    }
  };
  struct Hash {
    size_t operator()(const Key& k) const {
      uint64_t h = static_cast<uint64_t>(k.block) * 0x9e3779b97f4a7c15ull ^ k.name;
      h = (h ^ static_cast<uint64_t>(k.low)) * 0xff51afd7ed558ccdull;
      return static_cast<size_t>((h ^ static_cast<uint64_t>(k.high)) * 0xc4ceb9fe1a85ec53ull);
    }
  };
  std::unordered_map<Key, std::pair<int64_t, int64_t>, Hash> answers;
};

// The model's copies of operands that inlining changes (Inst::operands): in
// chunks that never move, so the views stay valid when the model moves.
class OperandStore {
 public:
  std::span<ptx::Operand> copy(std::span<const ptx::Operand> operands);

 private:
  std::vector<std::unique_ptr<ptx::Operand[]>> chunks_;
  size_t used_ = 0, capacity_ = 0;  // of the last chunk
};

struct FunctionModel {
  const ptx::Module* module = nullptr;
  const ptx::Function* function = nullptr;
  std::vector<Inst> instructions;
  OperandStore remappedOperands;  // what Inst::operands views when not the syntax's
  std::vector<BlockId> blockOf;            // per instruction (same as Inst::block)
  std::vector<BasicBlock> blocks;          // block 0 is the entry
  // Per ValueReg: views of the syntax tree's registers (ptx::Register).
  std::vector<std::string_view> registerNames;
  std::vector<std::string_view> registerTypes;
  // Dominators: immediate dominator per block (-1 for entry / unreachable).
  std::vector<BlockId> idom;
  // Post-dominators over a virtual exit: immediate post-dominator (-1 = virtual exit).
  std::vector<BlockId> ipostdom;
  std::vector<Loop> loops;
  std::vector<int32_t> loopOf;             // innermost loop index per block, or -1
  std::unique_ptr<BlockReachability> reachability;  // which blocks reach which (Paths.h's reachable)
  std::unique_ptr<ValueAnalysis> values;
  // Per block: no thread runs it, its branches decided by the thread index
  // (model/ThreadDecidedBranches.h: nvcc's remainder iterations of a
  // block-strided loop shorter than the block).
  std::vector<char> noThreadRuns;
  std::unique_ptr<MemoryAnalysis> memory;
  std::unique_ptr<ThreadRoles> roles;
  std::unique_ptr<ProtocolModel> protocol;  // flag and barrier protocols (model/Protocol.h)
  // How generic accesses of shared memory are handed to async-proxy
  // operations, and which fences count (model/HandOffs.h).
  std::unique_ptr<handoff::HandOffAnalysis> handOffs;
  bool hasUnanalyzedCalls = false;         // a call that could not be inlined
  // Over a limit whole, the function keeps its calls to synchronization-free
  // callees (model/CallSummaries.h): how many, and the instructions its model
  // would have had with them inlined (0 when it has none).
  size_t summarizedCalls = 0;
  size_t inlinedWhole = 0;
  mutable GuardedRangeMemo guardedRangeMemo;  // model/GuardedRanges.cpp

  // Block-level (reflexive). Blocks unreachable from the entry are dominated
  // by nothing but themselves; blocks that reach no exit (infinite loops) are
  // post-dominated by nothing but themselves.
  bool dominates(BlockId a, BlockId b) const;
  bool postDominates(BlockId a, BlockId b) const;
  // Instruction-level: a executes before b on every path from entry to b
  // (BlockId and InstId are the same type, hence the distinct name).
  bool dominatesInst(InstId a, InstId b) const;
  // a executes after b on every path from b to an exit.
  bool postDominatesInst(InstId a, InstId b) const;
  // The instruction an opaque term of the value analysis names ("def:<inst>",
  // a value the affine form does not follow), or -1 for any other name.
  InstId termDefinition(std::string_view termName) const;
  // Both unguarded, or guarded by the same predicate value: the same
  // register and polarity, defined by the same instruction where each reads it.
  bool sameGuard(InstId a, InstId b) const;
  // Dominator-tree pre/post numbers (internal: O(1) dominance queries).
  std::vector<int32_t> domIn, domOut, postDomIn, postDomOut;
  // Source location of an instruction: innermost frame first, including the
  // frames of the calls it was inlined through. Empty when there is no .loc.
  std::vector<SourceFrame> sourceChain(InstId) const;

  ~FunctionModel();
  FunctionModel();
  FunctionModel(FunctionModel&&) noexcept;
  FunctionModel& operator=(FunctionModel&&) noexcept;
};

// Builds every stage of the model of `function` (which has a body) into `fn`:
// flatten (inline calls), basic blocks, dominators, loops, values, memory,
// thread roles, protocols, hand-offs. `fn` must stay where it is afterwards (its value analysis and thread
// roles keep a reference to it), and `module` must outlive it. Throws
// LimitExceeded when the function is over a limit; `budget` is the inlining
// budget of the whole input, shared by its functions; `deadline` is checked
// between stages. The driver builds, checks and drops one function at a time,
// so that memory is bounded by the largest function, not by the input.
void buildFunctionModel(FunctionModel& fn, const ptx::Module& module, const ptx::Function& function,
                        const Limits& limits, InliningBudget& budget, const Deadline& deadline);

// Instructions the module's functions have before inlining (InliningBudget::forInput).
size_t instructionsBeforeInlining(const ptx::Module& module);

// The module must outlive the program (Inst::syntax points into it), and a
// FunctionModel must stay where buildProgram put it: its value analysis and
// thread roles keep a reference to it.
struct Program {
  const ptx::Module* module = nullptr;
  // One model per function with a body: entries (kernels) with calls inlined,
  // and `.func`s on their own (for functions no kernel calls).
  std::vector<FunctionModel> functions;
  size_t instructionCount = 0;
};

// Call `i` was not inlined (through a register, to a declaration, or kept as
// a call by model/CallSummaries.h): an inlined call's body follows it, each
// instruction naming it as its Inst::callSite. What such a body does is unknown.
inline bool isOpaqueCall(const FunctionModel& fn, InstId i) {
  const auto next = static_cast<size_t>(i) + 1;
  return next >= fn.instructions.size() || fn.instructions[next].callSite != i;
}

// Every function with a body, all held at once (unit tests, tools). Throws
// LimitExceeded when one function is over a limit.
Program buildProgram(const ptx::Module& module, const Limits& limits = {});

}  // namespace fenceline::model
