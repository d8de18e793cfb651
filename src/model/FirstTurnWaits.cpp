// Reads on the first turn of a turn word (model/FirstTurnWaits.h; issue 34,
// cuDNN's shape P7, session 28).
//
// A split-K reduction takes turns on a word: the block whose turn is T waits
// until the word equals T, reads and updates the output, and stores T + 1.
// cuDNN's `wgrad_alg1_*` engines take T from a ticket (`atom.add` on a counter,
// broadcast through shared memory); thread 0 spins `while (ld.volatile(turn)
// != T)`, `bar.sync`; the block whose T is 0 reads dW with a plain `ld.global`
// (beta * dW), the others with `ld.volatile`; then `membar.gl; bar.sync` and
// thread 0 stores `turn = T + 1`.
//
// The read on the side where T == 0 follows no signal: each store of the
// kernel into the word writes the storing block's own turn plus c (c in
// [1, 2^31)), so the word counts up from the value it held at the launch,
// and a store writes 0 only after the count has passed 0xFFFFFFFF (a wrap, as
// every counter rule presumes none). A wait that leaves on 0 has read the
// word's initial value: it is the first turn, and every other turn waits for
// a value that only a store after this one produces. What a partner writes
// comes after the read; the read needs no acquire from this wait.
//
// Decided only when: the spin's one exit leaves when the polled value equals
// a register T (setp.eq/ne of the poll's result with T), T has one definition
// outside every loop and reads no thread index (a load from an address with
// no index terms: the block's broadcast ticket, a parameter); every in-kernel
// store the model gathers for the polled word stores `add T, c` with that same
// definition of T (the turn handed on); and every path from the observation
// to the read takes an edge on which `T == 0` (setp.eq/ne of T with 0),
// without passing the spin loop's header again.
#include "model/FirstTurnWaits.h"

#include <algorithm>
#include <optional>

#include "model/BranchEdges.h"
#include "model/Limits.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using Kind = ptx::Operand::Kind;

bool inLoop(const Loop& loop, BlockId b) { return std::find(loop.blocks.begin(), loop.blocks.end(), b) != loop.blocks.end(); }

// The one definition of `reg` reaching `at`, or -1.
InstId onlyDefinition(const FunctionModel& fn, ValueReg reg, InstId at) {
  const std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
  return defs.size() == 1 ? defs.front() : -1;
}

// `setp.eq` / `setp.ne` (integer) of two operands: which one, and its operands.
struct Equality {
  bool eq = false;
  const ptx::Operand* a = nullptr;
  const ptx::Operand* b = nullptr;
};
std::optional<Equality> equalityTest(const FunctionModel& fn, InstId def) {
  if (def < 0) return std::nullopt;
  const Inst& in = fn.instructions[def];
  if (in.opcode() != "setp" || in.operands.size() != 3 || in.guard) return std::nullopt;
  if (!in.hasModifier("eq") && !in.hasModifier("ne")) return std::nullopt;
  if (in.hasModifier("f32") || in.hasModifier("f64")) return std::nullopt;
  return Equality{in.hasModifier("eq"), &in.operands[1], &in.operands[2]};
}

bool insideAnyLoop(const FunctionModel& fn, BlockId b) {
  return std::any_of(fn.loops.begin(), fn.loops.end(), [&](const Loop& l) { return inLoop(l, b); });
}

// T's definition reads no thread index: a load from an address without index
// terms (every thread of the block reads the same word), or a parameter.
bool sameForTheBlock(const FunctionModel& fn, InstId def) {
  const Inst& in = fn.instructions[def];
  if (in.effect.kind != EffectKind::Load || in.effect.address < 0) return false;
  const AbstractValue& address = fn.values->keptOperandValue(def, in.effect.address);
  return address.known && address.hasBase() && address.terms.empty();
}

// The register the spin compares with the polled value at its exit, when the
// spin leaves exactly when the two are equal: T's definition, or -1.
InstId turnDefinition(const FunctionModel& fn, const SpinLoop& spin, InstId poll) {
  if (spin.loop < 0 || spin.exitBranches.size() != 1) return -1;
  const Loop& loop = fn.loops[spin.loop];
  const InstId branch = spin.exitBranches.front();
  const BlockId from = fn.blockOf[branch];
  BlockId out = -1;
  for (BlockId s : fn.blocks[from].successors)
    if (!inLoop(loop, s)) out = s;
  if (out < 0) return -1;
  const std::optional<EdgeCondition> edge = edgeCondition(fn, from, out);
  if (!edge || edge->predicate < 0) return -1;
  const InstId test = onlyDefinition(fn, edge->predicate, branch);
  const std::optional<Equality> eq = equalityTest(fn, test);
  if (!eq || eq->eq != edge->value) return -1;  // leaves on "equal" only
  if (eq->a->kind != Kind::Register || eq->b->kind != Kind::Register) return -1;
  const InstId da = onlyDefinition(fn, eq->a->reg, test), db = onlyDefinition(fn, eq->b->reg, test);
  const InstId turn = da == poll ? db : db == poll ? da : -1;
  if (turn < 0 || inLoop(loop, fn.blockOf[turn]) || insideAnyLoop(fn, fn.blockOf[turn])) return -1;
  return sameForTheBlock(fn, turn) ? turn : -1;
}

// Every signal stores `add T, c` (c in [1, 2^31)) with T's definition `turn`.
bool handsTurnOn(const FunctionModel& fn, InstId signal, InstId turn) {
  const Inst& store = fn.instructions[signal];
  if (store.effect.kind != EffectKind::Store || store.operands.empty()) return false;
  const ptx::Operand& value = store.operands.back();
  if (value.kind != Kind::Register) return false;
  const InstId add = onlyDefinition(fn, value.reg, signal);
  if (add < 0) return false;
  const Inst& in = fn.instructions[add];
  if (in.opcode() != "add" || in.operands.size() != 3 || in.guard) return false;
  for (int k = 1; k <= 2; ++k) {
    const ptx::Operand &reg = in.operands[k], &c = in.operands[3 - k];
    if (reg.kind == Kind::Register && c.kind == Kind::Integer && c.intValue >= 1 && c.intValue < (int64_t(1) << 31) &&
        onlyDefinition(fn, reg.reg, add) == turn)
      return true;
  }
  return false;
}

// On the edge from -> to, T == 0 holds (a branch on setp.eq/ne of T with 0).
bool turnIsZeroOnEdge(const FunctionModel& fn, BlockId from, BlockId to, InstId turn) {
  const std::optional<EdgeCondition> edge = edgeCondition(fn, from, to);
  if (!edge || edge->predicate < 0) return false;
  const InstId test = onlyDefinition(fn, edge->predicate, edge->branch);
  const std::optional<Equality> eq = equalityTest(fn, test);
  if (!eq) return false;
  auto zero = [](const ptx::Operand* o) { return o->kind == Kind::Integer && o->intValue == 0; };
  const ptx::Operand* other = zero(eq->b) ? eq->a : zero(eq->a) ? eq->b : nullptr;
  if (!other || other->kind != Kind::Register || onlyDefinition(fn, other->reg, test) != turn) return false;
  return eq->eq == edge->value;
}

}  // namespace

std::vector<char> firstTurnOnlyBlocks(const FunctionModel& fn, const SpinLoop& spin, InstId poll,
                                      const std::vector<InstId>& signals) {
  if (!fn.values || signals.empty()) return {};
  const InstId turn = turnDefinition(fn, spin, poll);
  if (turn < 0) return {};
  for (InstId s : signals)
    if (!handsTurnOn(fn, s, turn)) return {};
  // The blocks the observation reaches (`any`), and those it reaches without
  // an edge where T == 0 (`other`), without entering the spin loop again.
  const Loop& loop = fn.loops[spin.loop];
  auto walk = [&](bool cut) {
    std::vector<char> seen(fn.blocks.size(), 0);
    std::vector<BlockId> work;
    auto step = [&](BlockId from, BlockId to) {
      if (inLoop(loop, to) || seen[to] || (cut && turnIsZeroOnEdge(fn, from, to, turn))) return;
      seen[to] = 1;
      work.push_back(to);
    };
    for (BlockId b : loop.blocks)
      for (BlockId s : fn.blocks[b].successors) step(b, s);
    while (!work.empty()) {
      model::poll();
      const BlockId b = work.back();
      work.pop_back();
      for (BlockId s : fn.blocks[b].successors) step(b, s);
    }
    return seen;
  };
  const std::vector<char> any = walk(false), other = walk(true);
  std::vector<char> first(fn.blocks.size(), 0);
  for (size_t b = 0; b < first.size(); ++b) first[b] = any[b] && !other[b];
  return first;
}

}  // namespace fenceline::model
