// A grid barrier's own index word (model/BarrierStateWords.h; issue 34,
// MSCCL++'s shape GS).
//
// A barrier of rotating counters keeps which counter the next use takes in a
// word of its own: thread 0 of each block reads the index, arrives on the
// counter after it and spins until the count is reached, then stores the
// index it computed from what it read (`i = (s.index + 1) % 3; ...;
// s.index = i`). The store's value comes from the thread's own read of the
// same word across the barrier's wait, through arithmetic on constants only:
// every block that passes the barrier read the same old value (no block
// stores before the count says every block has arrived, which each did
// after its read) and stores the same new one, and a block's next read
// follows its own store. Such a word publishes nothing to a later wait: what
// a reader gets from another block's store it has already stored itself.
// Whether every block that stores the word passes that barrier, the PTX does
// not show (the count the spin waits for is a value of the launch, a plan's
// block count), so the data link of such a store is undecided
// (`barrier-state`), not gone.
//
// The store: a scalar global store whose value register is computed,
// through register arithmetic on integer constants, only from loads of the
// same word (model/Memory sameWord); some spin loop with an acquiring poll
// lies between: the loads' blocks dominate its header and one of its exit
// blocks dominates the store's block.
#include "model/BarrierStateWords.h"

#include <algorithm>

#include "model/Protocol.h"
#include "model/SpinLoops.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

// Register arithmetic that passes its operands' values on.
bool isArithmetic(std::string_view op) {
  static constexpr std::string_view kOps[] = {"mov", "add", "sub", "mul", "mad", "shl", "shr", "and", "or",
                                              "xor", "cvt", "rem", "div", "min", "max", "neg", "not"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

// `reg` at `at` is computed only from integer constants and loads (gathered
// in `loads`) through isArithmetic; false on anything else (a special
// register, a parameter, an atomic's result, a merge with another value).
bool derivedFromLoads(const FunctionModel& fn, ValueReg reg, InstId at, int depth, std::vector<InstId>& loads) {
  if (depth > 24) return false;
  const std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
  if (defs.empty()) return false;
  for (InstId d : defs) {
    const Inst& def = fn.instructions[d];
    if (def.effect.kind == EffectKind::Load) {
      if (std::find(loads.begin(), loads.end(), d) == loads.end()) loads.push_back(d);
      continue;
    }
    if (def.effect.kind != EffectKind::None || !isArithmetic(def.opcode()) || def.guard) return false;
    for (size_t k = 1; k < def.operands.size(); ++k) {
      const ptx::Operand& op = def.operands[k];
      if (op.kind == ptx::Operand::Kind::Integer) continue;
      if (op.kind != ptx::Operand::Kind::Register || !derivedFromLoads(fn, op.reg, d, depth + 1, loads)) return false;
    }
  }
  return true;
}

}  // namespace

bool isBarrierStateStore(const ProtocolModel& protocol, InstId write) {
  const FunctionModel& fn_ = protocol.function();
  if (write < 0 || !fn_.values || !fn_.memory) return false;
  const Inst& store = fn_.instructions[write];
  const MemoryEffect& e = store.effect;
  if (e.kind != EffectKind::Store || e.address < 0 || (e.space != Space::Global && e.space != Space::Generic))
    return false;
  if (store.operands.empty() || store.operands.back().kind != ptx::Operand::Kind::Register ||
      static_cast<int>(store.operands.size()) - 1 <= e.address)
    return false;
  std::vector<InstId> loads;
  if (!derivedFromLoads(fn_, store.operands.back().reg, write, 0, loads) || loads.empty()) return false;
  for (InstId load : loads)
    if (!fn_.memory->sameWord(load, write)) return false;
  // A spin with an acquiring poll between the reads and the store.
  const BlockId at = fn_.blockOf[write];
  for (const SpinLoop& spin : protocol.spins()) {
    if (std::none_of(spin.polls.begin(), spin.polls.end(),
                     [&](InstId p) { return hasAcquireSemantics(fn_.instructions[p].effect); }))
      continue;
    const BlockId header = fn_.loops[spin.loop].header;
    if (!std::all_of(loads.begin(), loads.end(), [&](InstId l) { return fn_.dominates(fn_.blockOf[l], header); }))
      continue;
    if (std::any_of(spin.exitBlocks.begin(), spin.exitBlocks.end(), [&](BlockId x) { return fn_.dominates(x, at); }))
      return true;
  }
  return false;
}

AliasEvidence barrierStateEvidence() {
  return ProtocolModel::undecidedPairEvidence(
      "barrier-state",
      "the write stores a barrier's own index, computed from the writer's read of the same word across the "
      "barrier's wait: every block passing the barrier stores the same value and reads back its own, so it "
      "hands nothing, if every block that stores it passes that barrier (the count the wait needs is a value of "
      "the launch)");
}

}  // namespace fenceline::model
