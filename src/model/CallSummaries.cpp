// Which callees a function over its inlining limits keeps as calls, and what
// its model would cost with and without them (CallSummaries.h).
#include "model/CallSummaries.h"

#include <algorithm>
#include <string_view>

#include "model/MemoryEffect.h"

namespace fenceline::model::detail {
namespace {

// Opcodes of no memory effect (EffectKind::None) that the model or a check
// still reads: warp collectives (an elected lane, a value every lane holds),
// the spin-loop hint, and mbarrier, cluster, launch-dependency and
// multi-GPU forms. A callee with one of them is inlined.
bool readByChecks(std::string_view opcode) {
  static constexpr std::string_view kOpcodes[] = {"elect", "vote", "shfl", "match", "redux", "activemask",
                                                  "nanosleep", "mbarrier", "clusterlaunchcontrol",
                                                  "griddepcontrol", "mapa", "getctarank", "multimem", "setmaxnreg"};
  return std::find(std::begin(kOpcodes), std::end(kOpcodes), opcode) != std::end(kOpcodes);
}

bool weak(Semantics s) { return s == Semantics::None || s == Semantics::Weak; }

// One instruction of a synchronization-free body, calls aside: a weak load
// (any space), a weak store to the thread's own local or parameter space,
// `ret`, or no memory effect at all.
bool orderingFree(const ptx::Instruction& inst, const MemoryEffect& e) {
  switch (e.kind) {
    case EffectKind::None:
      return !readByChecks(inst.opcode);
    case EffectKind::Load:
      return weak(e.semantics) && !readByChecks(inst.opcode);
    case EffectKind::Store:
      return weak(e.semantics) && (e.space == Space::Local || e.space == Space::Param);
    case EffectKind::Exit:
      return inst.opcode == "ret";  // exit and trap end the thread: the caller's paths change
    default:
      return false;
  }
}

}  // namespace

const ptx::Function* calledFunction(const ptx::Module& module, const ptx::Instruction& call) {
  for (const auto& op : call.operands) {
    if (op.kind == ptx::Operand::Kind::ParamList) continue;  // the return values
    if (op.kind == ptx::Operand::Kind::Symbol) return module.function(op.text);
    if (op.kind == ptx::Operand::Kind::Register) return nullptr;  // through a register
  }
  return nullptr;
}

bool CallSummaries::synchronizationFree(const ptx::Function& f) {
  if (auto known = free_.find(&f); known != free_.end()) return known->second;
  // A body not held (past the call depth) is not known; recursion is not summarized.
  if (f.instructions.empty() || std::find(stack_.begin(), stack_.end(), &f) != stack_.end()) return false;
  stack_.push_back(&f);
  bool free = true;
  for (const auto& inst : f.instructions) {
    const MemoryEffect e = classify(inst);
    if (e.kind == EffectKind::Call) {
      const ptx::Function* callee = calledFunction(module_, inst);
      free = callee && synchronizationFree(*callee);
    } else {
      free = orderingFree(inst, e);
    }
    if (!free) break;
  }
  stack_.pop_back();
  free_.emplace(&f, free);
  return free;
}

size_t CallSummaries::inlinedSize(const ptx::Function& root, bool summarized) {
  return sizeOf(root, summarized, 0);
}

size_t CallSummaries::callTreeSize(const ptx::Function& root) {
  // Depth-first over the calls the inliner follows (a body past the call
  // depth is not held: it adds its instructions, zero, and nothing below).
  std::unordered_set<const ptx::Function*> seen{&root};
  std::vector<const ptx::Function*> todo{&root};
  size_t size = 0;
  while (!todo.empty()) {
    const ptx::Function* f = todo.back();
    todo.pop_back();
    size = std::min(kMany, size + f->instructions.size());
    for (const auto& inst : f->instructions) {
      if (inst.opcode != "call") continue;
      if (const ptx::Function* callee = calledFunction(module_, inst); callee && seen.insert(callee).second)
        todo.push_back(callee);
    }
  }
  return size;
}

size_t CallSummaries::sizeOf(const ptx::Function& f, bool summarized, int depth) {
  auto& sizes = sizes_[summarized];
  if (auto known = sizes.find(&f); known != sizes.end()) return known->second;
  size_t size = f.instructions.size();
  // Past the call depth the inliner stops with its own limit: count no further.
  if (depth >= maxCallDepth_) return size;
  stack_.push_back(&f);
  for (const auto& inst : f.instructions) {
    if (inst.opcode != "call") continue;
    const ptx::Function* callee = calledFunction(module_, inst);
    if (!callee || std::find(stack_.begin(), stack_.end(), callee) != stack_.end()) continue;  // stays a call
    if (summarized && synchronizationFree(*callee)) continue;
    size = std::min(kMany, size + sizeOf(*callee, summarized, depth + 1));
  }
  stack_.pop_back();
  sizes.emplace(&f, size);
  return size;
}

}  // namespace fenceline::model::detail
