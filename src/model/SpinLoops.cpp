// Spin-loop recognition (see SpinLoops.h): for each natural loop, walk the
// definitions of each exit branch's predicate backwards inside the loop,
// collecting the polls it depends on and noticing values carried from the
// previous iteration; then check the polled addresses and the loop's writes.
#include "model/SpinLoops.h"

#include <algorithm>
#include <optional>
#include <set>

#include "model/BranchEdges.h"
#include "model/Comparisons.h"
#include "model/Memory.h"
#include "model/NonZeroByGuard.h"
#include "model/Operands.h"
#include "model/PeeledPolls.h"
#include "model/Values.h"

namespace fenceline::model {
namespace {

bool isGlobalish(const FunctionModel& fn, InstId i) {
  const MemoryEffect& e = fn.instructions[i].effect;
  Space space = e.space;
  if (fn.values && e.address >= 0) {
    Space narrowed = fn.values->addressSpace(i, e.address);
    if (narrowed != Space::None) space = narrowed;
  }
  return space == Space::Global || space == Space::Generic;
}

// A load or store of the thread's own local memory (by its space, or by the
// space the value analysis narrows a generic address to).
bool isLocalAccess(const FunctionModel& fn, InstId i) {
  const MemoryEffect& e = fn.instructions[i].effect;
  if (e.address < 0) return false;
  if (e.space == Space::Local) return true;
  return fn.values && e.space == Space::Generic && fn.values->addressSpace(i, e.address) == Space::Local;
}

// Does definition `d` reach `at` within one iteration of the loop (without
// going around the back edge to the header)? Otherwise its value is carried
// from the previous iteration.
bool reachesWithinIteration(const FunctionModel& fn, const Loop& loop, InstId d, InstId at) {
  BlockId from = fn.blockOf[d], to = fn.blockOf[at];
  if (from == to) return d < at;
  // A definition whose block dominates the use reaches it without the back
  // edge (every path from the header to the use passes the definition). The
  // common case, answered without a walk over the loop (which made nested
  // loops cubic: issue 18).
  if (fn.dominates(from, to)) return true;
  std::vector<char> seen(fn.blocks.size(), 0);
  std::vector<BlockId> work{from};
  seen[from] = 1;
  while (!work.empty()) {
    model::poll();
    BlockId b = work.back();
    work.pop_back();
    for (BlockId s : fn.blocks[b].successors) {
      if (s == to) return true;
      if (s == loop.header || seen[s] || !std::binary_search(loop.blocks.begin(), loop.blocks.end(), s)) continue;
      seen[s] = 1;
      work.push_back(s);
    }
  }
  return false;
}

// A branch predicate as a fact about a base predicate: `@%q bra` with
// %q = not %p (through not.pred and mov, one reaching definition each, the
// base read with the same reaching definitions at the branch) is a test of
// %p. The base register and its value on the edge.
std::pair<ValueReg, bool> basePredicate(const FunctionModel& fn, ValueReg reg, InstId branch, bool value) {
  using Kind = ptx::Operand::Kind;
  InstId at = branch;
  for (int depth = 0; depth < 4; ++depth) {
    const std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
    if (defs.size() != 1) break;
    const Inst& def = fn.instructions[defs[0]];
    if ((def.guard && def.guard->reg >= 0) || def.operands.size() != 2 || def.operands[1].kind != Kind::Register)
      break;
    const bool negates = def.opcode() == "not";
    if (!negates && def.opcode() != "mov") break;
    const ValueReg base = def.operands[1].reg;
    // The base must hold at the branch the value the definition read.
    if (fn.values->reachingDefinitions(base, defs[0]) != fn.values->reachingDefinitions(base, branch)) break;
    reg = base;
    value = (negates != def.operands[1].negated) ? !value : value;
    at = defs[0];
  }
  return {reg, value};
}

// The definitions of `reg` that reach `at` inside one iteration of the loop
// on the paths whose branch conditions can hold together, when every such
// path from the loop's header to `at` defines the register; nullopt when
// some path reaches the header without a definition (the value then comes
// from before the loop or from the previous iteration), or the walk is too
// long. A path that takes two edges on opposite values of one predicate,
// not redefined between them, is no path a thread takes: libcu++'s atomic
// load tests its address with `isspacep.local` and reads with `ld.local` on
// one edge of the test and with `ld.relaxed` on the other, in two branches
// on the same predicate (issue 34, NCCL shape U); the path-insensitive
// reaching definitions also see the path that skips both loads, and with it
// whatever an enclosing loop's earlier trip left in the register.
std::optional<std::vector<InstId>> definedWithinIteration(const FunctionModel& fn, const Loop& loop, ValueReg reg,
                                                          InstId at) {
  using Facts = std::vector<std::pair<ValueReg, bool>>;  // sorted by register
  struct State {
    BlockId block;
    InstId end;  // scan the block's instructions before this one
    Facts facts;
  };
  constexpr size_t kMaxStates = 4096, kMaxFacts = 8;
  std::set<std::pair<BlockId, Facts>> seen;
  std::set<InstId> found;
  std::vector<State> work{{fn.blockOf[at], at, {}}};
  while (!work.empty()) {
    model::poll();
    State s = std::move(work.back());
    work.pop_back();
    bool defined = false;
    for (InstId i = s.end - 1; i >= fn.blocks[s.block].first && !defined; --i) {
      for (ValueReg w : writtenRegisters(fn.instructions[i])) {
        if (w == reg) {
          found.insert(i);
          const auto& guard = fn.instructions[i].guard;
          defined = defined || !guard || guard->reg < 0;
        }
        // Before a predicate's definition, what the later edges said of it no longer holds.
        s.facts.erase(std::remove_if(s.facts.begin(), s.facts.end(), [&](const auto& f) { return f.first == w; }),
                      s.facts.end());
      }
    }
    if (defined) continue;
    if (s.block == loop.header) return std::nullopt;
    for (BlockId p : fn.blocks[s.block].predecessors) {
      if (!std::binary_search(loop.blocks.begin(), loop.blocks.end(), p)) return std::nullopt;
      Facts facts = s.facts;
      if (const std::optional<EdgeCondition> edge = edgeCondition(fn, p, s.block); edge && edge->predicate >= 0) {
        const auto [base, value] = basePredicate(fn, edge->predicate, edge->branch, edge->value);
        auto it = std::lower_bound(facts.begin(), facts.end(), std::make_pair(base, false),
                                   [](const auto& a, const auto& b) { return a.first < b.first; });
        if (it != facts.end() && it->first == base) {
          if (it->second != value) continue;  // opposite edges of one test: no path
        } else if (facts.size() < kMaxFacts) {
          facts.insert(it, {base, value});
        }
      }
      if (!seen.insert({p, facts}).second) continue;
      if (seen.size() > kMaxStates) return std::nullopt;
      work.push_back({p, fn.blocks[p].last, std::move(facts)});
    }
  }
  return std::vector<InstId>(found.begin(), found.end());
}

// The conditional branch that decides to take an exit from block `b`: its
// own `@p bra`, or, when `b` only jumps or falls through (nvcc often puts a
// lone `bra.uni EXIT` after the test), the one of its single predecessor
// chain inside the loop. -1 when there is none.
InstId decidingBranch(const FunctionModel& fn, const SpinLoop& spin, BlockId b) {
  for (int steps = 0; steps < 4; ++steps) {
    const BasicBlock& block = fn.blocks[b];
    if (block.last > block.first) {
      const Inst& last = fn.instructions[block.last - 1];
      if (last.opcode() == "bra" && last.guard && last.guard->reg >= 0) return block.last - 1;
      for (InstId i = block.first; i < block.last; ++i)
        if (fn.instructions[i].effect.kind != EffectKind::None || fn.instructions[i].opcode() != "bra") return -1;
    }
    if (block.predecessors.size() != 1 || !spin.containsBlock(fn, block.predecessors[0])) return -1;
    b = block.predecessors[0];
  }
  return -1;
}

// The predicate walk for one exit branch.
struct ExitWalk {
  const FunctionModel& fn;
  const SpinLoop& loop;
  std::set<InstId> polls;
  std::set<InstId> comparisons;
  std::set<InstId> onStack;
  bool carried = false;

  void visitBroadcast(InstId load);
  void visitLocalSlot(InstId load);
  void visit(ValueReg reg, InstId at) {
    if (carried) return;
    std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
    bool inside = false, outside = false;
    for (InstId d : defs) (loop.contains(fn, d) ? inside : outside) = true;
    if (inside && outside) {
      // A rotated loop: the first poll peeled before the loop and the one in
      // the loop write the same register.
      bool samePoll = true;
      for (InstId d : defs)
        samePoll = samePoll && readsGlobalMemory(fn, d) && fn.memory->sameWord(d, defs.front());
      if (samePoll) {
        for (InstId d : defs)
          if (loop.contains(fn, d)) polls.insert(d);
        return;
      }
      // Defined in this iteration on every path a thread can take (the
      // outside definitions reach only on paths whose branches contradict
      // each other); otherwise the value is carried from the previous
      // iteration.
      std::optional<std::vector<InstId>> within = definedWithinIteration(fn, fn.loops[loop.loop], reg, at);
      if (!within) {
        carried = true;
        return;
      }
      defs = std::move(*within);
    }
    for (InstId d : defs) {
      if (!loop.contains(fn, d)) continue;
      if (onStack.count(d) || !reachesWithinIteration(fn, fn.loops[loop.loop], d, at)) {
        carried = true;
        return;
      }
      const Inst& inst = fn.instructions[d];
      if (readsGlobalMemory(fn, d)) {
        polls.insert(d);
        continue;
      }
      const EffectKind kind = inst.effect.kind;
      if (kind == EffectKind::Load && isSharedSpace(inst.effect.space)) {
        visitBroadcast(d);
        continue;
      }
      if (kind == EffectKind::Load && isLocalAccess(fn, d)) {
        visitLocalSlot(d);
        continue;
      }
      if (kind != EffectKind::None && kind != EffectKind::CtaBarrier) continue;  // param loads
      if (inst.opcode() == "setp") comparisons.insert(d);
      onStack.insert(d);
      for (ValueReg r : registerUse(inst).read) visit(r, d);
      onStack.erase(d);
    }
  }
};

// ExitWalk::visitBroadcast: a shared-memory load in the loop whose word a
// store earlier in the same iteration wrote: one thread polls and hands the
// value to the others through shared memory and a barrier (Triton's scalar
// atomics and `volatile` loads compile to this). The walk continues at the
// stored value, so the poll is the global load behind it. Bounded: loops of
// at most kBroadcastScan instructions are scanned for the store.
constexpr size_t kBroadcastScan = 4096;

void ExitWalk::visitBroadcast(InstId load) {
  const Loop& l = fn.loops[loop.loop];
  size_t scanned = 0;
  for (BlockId b : l.blocks) {
    for (InstId s = fn.blocks[b].first; s < fn.blocks[b].last; ++s) {
      if (++scanned > kBroadcastScan) return;
      const Inst& store = fn.instructions[s];
      if (store.effect.kind != EffectKind::Store || !isSharedSpace(store.effect.space)) continue;
      if (!fn.memory->sameWord(s, load) || !reachesWithinIteration(fn, l, s, load)) continue;
      if (onStack.count(s)) continue;
      onStack.insert(s);
      RegisterUse use = registerUse(store);
      for (ValueReg r : use.read) {
        if (std::find(use.addressed.begin(), use.addressed.end(), r) != use.addressed.end()) continue;
        visit(r, s);
      }
      onStack.erase(s);
    }
  }
}

// ExitWalk::visitLocalSlot: a load of the thread's local memory on the way to
// the exit reads what the loop stored there. When a store of the loop writes
// the slot with what a CAS of the loop returned and that value reaches the
// load around the back edge (on some way that no store of the same word
// overwrites first), the load hands over the previous trip's value: carried,
// as a register would be. libcu++'s compare_exchange keeps `expected` in the
// thread's local memory for its local-memory branch and writes the value the
// last CAS returned there: an update's retry, not a wait. A CAS return that a
// store of a constant overwrites before the trip goes back (cuTENSOR's
// block-sparse lock resets `expected` to 1 after every failed CAS: a wait for
// that value) is not carried, and any other slot stays a leaf (a value the
// same on every trip), as before.
void ExitWalk::visitLocalSlot(InstId load) {
  const Loop& l = fn.loops[loop.loop];
  const int lo = fn.instructions[load].effect.address;
  auto writesSlot = [&](InstId s) {
    const MemoryEffect& e = fn.instructions[s].effect;
    return e.writes && e.address >= 0 && isLocalAccess(fn, s) &&
           fn.memory->alias(s, e.address, load, lo) != AliasResult::No;
  };
  // Does the value `s` stores reach the load around the back edge, on some
  // way that no store of the same word overwrites first? (cuTENSOR's
  // lock-style wait stores what its CAS returned, then the constant it waits
  // for, before going back: the load reads the constant.)
  auto reachesAroundBackEdge = [&](InstId s) {
    auto overwrites = [&](InstId i) {
      return i != s && fn.instructions[i].effect.writes && isLocalAccess(fn, i) && fn.memory->sameWord(i, load);
    };
    std::vector<char> seen(fn.blocks.size(), 0);
    std::vector<std::pair<BlockId, InstId>> work{{fn.blockOf[s], s + 1}};
    while (!work.empty()) {
      auto [b, from] = work.back();
      work.pop_back();
      bool stopped = false;
      for (InstId i = from; i < fn.blocks[b].last && !stopped; ++i) {
        if (i == load) return true;
        stopped = overwrites(i);
      }
      if (stopped) continue;
      for (BlockId next : fn.blocks[b].successors) {
        if (seen[next] || !std::binary_search(l.blocks.begin(), l.blocks.end(), next)) continue;
        seen[next] = 1;
        work.push_back({next, fn.blocks[next].first});
      }
    }
    return false;
  };
  // What a CAS of the loop returned, stored to the slot (nothing else is
  // followed: other stores leave the load a leaf, as before).
  auto storesCasReturn = [&](InstId st) {
    const Inst& in = fn.instructions[st];
    if (in.operands.size() < 2 || in.operands[1].kind != ptx::Operand::Kind::Register) return false;
    const std::vector<InstId> defs = fn.values->reachingDefinitions(in.operands[1].reg, st);
    return !defs.empty() && std::all_of(defs.begin(), defs.end(), [&](InstId d) {
      const Inst& def = fn.instructions[d];
      return loop.contains(fn, d) && def.effect.kind == EffectKind::ReadModifyWrite && def.hasModifier("cas");
    });
  };
  size_t scanned = 0;
  for (BlockId b : l.blocks) {
    for (InstId st = fn.blocks[b].first; st < fn.blocks[b].last; ++st) {
      if (++scanned > kBroadcastScan) return;
      if (!writesSlot(st) || reachesWithinIteration(fn, l, st, load) || !storesCasReturn(st)) continue;
      if (reachesAroundBackEdge(st)) {
        carried = true;
        return;
      }
    }
  }
}

// Does the address register's value change across iterations?
struct AddressWalk {
  const FunctionModel& fn;
  const SpinLoop& loop;
  std::set<InstId> onStack;

  bool variant(ValueReg reg, InstId at) {
    std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
    bool inside = false, outside = false;
    for (InstId d : defs) (loop.contains(fn, d) ? inside : outside) = true;
    if (inside && outside) return true;
    for (InstId d : defs) {
      if (!loop.contains(fn, d)) continue;
      if (onStack.count(d) || !reachesWithinIteration(fn, fn.loops[loop.loop], d, at)) return true;
      onStack.insert(d);
      RegisterUse use = registerUse(fn.instructions[d]);
      bool v = false;
      for (ValueReg r : use.read) v = v || variant(r, d);
      for (ValueReg r : use.addressed) v = v || variant(r, d);
      onStack.erase(d);
      if (v) return true;
    }
    return false;
  }
};

// An exit that tests whether the trip's compare-and-swap succeeded: its polls
// are a CAS and reads of the CAS's own word, the CAS's compare operand is
// computed from such a read of this trip (`old = *p; ... while (atomicCAS(p,
// old, old + v) != old)`: cuDF's 128-bit sums), and every comparison on the
// way that reads one of those values also reads the CAS's result (the
// success test, not a test of the word's value), and every trip runs the CAS
// (its block dominates every block that goes back to the header: a
// semaphore's `v == 0 || atomicCAS(s, v, v - 1) != v` goes back without the
// CAS while the count is 0, a wait for another thread's raise, and stays a
// spin). Such a loop leaves as soon as no other thread wrote the word between
// the read and the CAS: on no value that another thread must store. An
// update's retry, not a wait. (The same retry with the compare operand carried
// from the previous trip is no spin already: ExitWalk.)
bool casRetryExit(const FunctionModel& fn, const Loop& loop, const std::set<InstId>& polls,
                  const std::set<InstId>& comparisons) {
  for (InstId cas : polls) {
    const Inst& in = fn.instructions[cas];
    const int compare = in.effect.address + 1;
    if (in.effect.kind != EffectKind::ReadModifyWrite || !in.hasModifier("cas") || in.effect.address < 0 ||
        compare >= static_cast<int>(in.operands.size()) || in.operands[compare].kind != ptx::Operand::Kind::Register)
      continue;
    std::vector<InstId> reads;
    for (InstId p : polls)
      if (p != cas) reads.push_back(p);
    if (reads.empty() || !std::all_of(reads.begin(), reads.end(), [&](InstId p) { return fn.memory->sameWord(p, cas); }))
      continue;
    if (!valueDependsOn(fn, in.operands[compare].reg, cas, reads)) continue;
    const BlockId casBlock = fn.blockOf[cas];
    const bool everyTrip = std::all_of(loop.blocks.begin(), loop.blocks.end(), [&](BlockId b) {
      const auto& next = fn.blocks[b].successors;
      return std::find(next.begin(), next.end(), loop.header) == next.end() || fn.dominates(casBlock, b);
    });
    if (!everyTrip) continue;
    const bool successTest = std::all_of(comparisons.begin(), comparisons.end(), [&](InstId c) {
      bool read = false, result = false;
      for (ValueReg r : registerUse(fn.instructions[c]).read) {
        read = read || valueDependsOn(fn, r, c, reads);
        result = result || valueDependsOn(fn, r, c, {cas});
      }
      return !read || result;
    });
    if (successTest) return true;
  }
  return false;
}

// The blocks of `loop` with a successor outside it, found from the loop's
// exits (not by scanning every block of every loop: nested loops made that
// quadratic in the nesting depth).
std::vector<BlockId> exitingBlocks(const FunctionModel& fn, const Loop& loop) {
  std::vector<BlockId> exiting;
  for (BlockId exit : loop.exits)
    for (BlockId p : fn.blocks[exit].predecessors)
      if (std::binary_search(loop.blocks.begin(), loop.blocks.end(), p)) exiting.push_back(p);
  std::sort(exiting.begin(), exiting.end());
  exiting.erase(std::unique(exiting.begin(), exiting.end()), exiting.end());
  return exiting;
}

// How many global writes each loop holds, nested loops included: counted once
// per block and summed up the loop tree (linear in the function).
std::vector<size_t> globalWritesPerLoop(const FunctionModel& fn) {
  std::vector<size_t> own(fn.loops.size(), 0);
  for (BlockId b = 0; b < static_cast<BlockId>(fn.blocks.size()); ++b) {
    int32_t l = b < static_cast<BlockId>(fn.loopOf.size()) ? fn.loopOf[b] : -1;
    if (l < 0) continue;
    for (InstId i = fn.blocks[b].first; i < fn.blocks[b].last; ++i) own[l] += writesGlobalMemory(fn, i);
  }
  // Sum children into parents, children first: a post-order walk of the loop tree.
  std::vector<std::vector<int32_t>> children(fn.loops.size());
  std::vector<int32_t> roots;
  for (size_t l = 0; l < fn.loops.size(); ++l) {
    int32_t p = fn.loops[l].parent;
    (p >= 0 ? children[p] : roots).push_back(static_cast<int32_t>(l));
  }
  std::vector<size_t> total = own;
  std::vector<std::pair<int32_t, size_t>> stack;  // (loop, next child)
  for (int32_t root : roots) {
    stack.push_back({root, 0});
    while (!stack.empty()) {
      model::poll();
      auto& [l, next] = stack.back();
      if (next < children[l].size()) {
        int32_t child = children[l][next++];
        stack.push_back({child, 0});
        continue;
      }
      int32_t done = l;
      stack.pop_back();
      if (!stack.empty()) total[stack.back().first] += total[done];
    }
  }
  return total;
}

}  // namespace

bool readsGlobalMemory(const FunctionModel& fn, InstId i) {
  const MemoryEffect& e = fn.instructions[i].effect;
  if (e.kind != EffectKind::Load && e.kind != EffectKind::ReadModifyWrite) return false;
  if (!e.reads || fn.instructions[i].hasModifier("nc")) return false;
  return isGlobalish(fn, i);
}

bool writesGlobalMemory(const FunctionModel& fn, InstId i) {
  const MemoryEffect& e = fn.instructions[i].effect;
  if (e.kind != EffectKind::Store && e.kind != EffectKind::ReadModifyWrite) return false;
  return e.writes && isGlobalish(fn, i);
}

bool SpinLoop::containsBlock(const FunctionModel& fn, BlockId block) const {
  const auto& blocks = fn.loops[loop].blocks;
  return std::binary_search(blocks.begin(), blocks.end(), block);
}

bool SpinLoop::contains(const FunctionModel& fn, InstId inst) const {
  return inst >= 0 && containsBlock(fn, fn.blockOf[inst]);
}

namespace {

// A predicate that tests the value a poll returned against a constant:
// (value == k) when `equal`, else (value != k).
struct PollTest {
  int64_t k = 0;
  bool equal = true;
};

// `pred` at `at` as such a test of the value `poll` returned, through
// setp.eq/ne with a constant and not.pred; nullopt otherwise.
std::optional<PollTest> pollTest(const FunctionModel& fn, ValueReg pred, InstId at, InstId poll, int depth = 0) {
  if (depth > 4 || !fn.values || pred < 0) return std::nullopt;
  const std::vector<InstId> defs = fn.values->reachingDefinitions(pred, at);
  if (defs.size() != 1) return std::nullopt;
  const InstId d = defs[0];
  const Inst& def = fn.instructions[d];
  using Kind = ptx::Operand::Kind;
  if (def.opcode() == "not" && def.operands.size() == 2 && def.operands[1].kind == Kind::Register) {
    std::optional<PollTest> t = pollTest(fn, def.operands[1].reg, d, poll, depth + 1);
    if (t) t->equal = !t->equal;
    return t;
  }
  if (def.opcode() != "setp" || !(def.hasModifier("eq") || def.hasModifier("ne")) || def.operands.size() != 3 ||
      def.operands[0].kind != Kind::Register)
    return std::nullopt;
  for (int side : {1, 2}) {
    const std::optional<int64_t> k = fn.values->constantOf(d, 3 - side);
    const ptx::Operand& value = def.operands[side];
    if (!k || value.kind != Kind::Register) continue;
    const std::vector<InstId> from = fn.values->reachingDefinitions(value.reg, d);
    if (from.size() == 1 && from[0] == poll) return PollTest{*k, def.hasModifier("eq")};
  }
  return std::nullopt;
}

// Every value that passes `a` passes `b`.
bool implies(PollTest a, PollTest b) {
  if (a.equal) return b.equal ? a.k == b.k : a.k != b.k;
  return !b.equal && a.k == b.k;
}

// The test on the edge from `from` to `to` (the branch's predicate with its value there).
std::optional<PollTest> edgeTest(const FunctionModel& fn, BlockId from, BlockId to, InstId poll) {
  const std::optional<EdgeCondition> edge = edgeCondition(fn, from, to);
  if (!edge) return std::nullopt;
  std::optional<PollTest> t = pollTest(fn, edge->predicate, edge->branch, poll);
  if (t && !edge->value) t->equal = !t->equal;
  return t;
}

}  // namespace

bool afterObservation(const FunctionModel& fn, const SpinLoop& spin, InstId poll, BlockId block) {
  if (spin.loop < 0 || block < 0) return false;
  // The exits' conditions on the polled value.
  std::vector<PollTest> exits;
  for (InstId e : spin.exitBranches) {
    const BlockId b = fn.blockOf[e];
    for (BlockId s : fn.blocks[b].successors)
      if (!spin.containsBlock(fn, s))
        if (std::optional<PollTest> t = edgeTest(fn, b, s, poll)) exits.push_back(*t);
  }
  if (exits.empty()) return false;
  // An edge inside the loop that every path to the block takes, whose test implies an exit.
  for (BlockId b : fn.loops[spin.loop].blocks) {
    model::poll();
    for (BlockId s : fn.blocks[b].successors) {
      if (!spin.containsBlock(fn, s) || !edgeDominatesBlock(fn, b, s, block)) continue;
      const std::optional<PollTest> t = edgeTest(fn, b, s, poll);
      if (t && std::any_of(exits.begin(), exits.end(), [&](PollTest x) { return implies(*t, x); })) return true;
    }
  }
  return false;
}

namespace {

// `value <cmp> [low, high]`: true or false for every number of the range, or nullopt.
std::optional<bool> compareWithRange(int64_t value, std::string_view cmp, int64_t low, int64_t high) {
  const bool isUnsigned = cmp == "lo" || cmp == "ls" || cmp == "hi" || cmp == "hs";
  if (isUnsigned && (value < 0 || low < 0)) return std::nullopt;
  cmp = signedComparison(cmp);
  auto all = [&](bool atLow, bool atHigh, bool inside) -> std::optional<bool> {
    if (atLow == atHigh && atLow == inside) return atLow;
    return std::nullopt;
  };
  if (cmp == "lt") return all(value < low, value < high, value < low || value < high);
  if (cmp == "le") return all(value <= low, value <= high, value <= low || value <= high);
  if (cmp == "gt") return all(value > low, value > high, value > low || value > high);
  if (cmp == "ge") return all(value >= low, value >= high, value >= low || value >= high);
  if (cmp == "eq") {
    if (value < low || value > high) return false;
    if (low == high) return true;
    return std::nullopt;
  }
  if (cmp == "ne") {
    if (value < low || value > high) return true;
    if (low == high) return false;
    return std::nullopt;
  }
  return std::nullopt;
}

// Every value `reg` may hold at `at` comes from the thread's local memory:
// loads of local space and register computations of them (the local branch
// of libcu++'s local-or-global atomic load). `budget` bounds the walk.
bool fromLocalMemory(const FunctionModel& fn, ValueReg reg, InstId at, int& budget);

// Instruction `d` defines its register from the thread's local memory.
bool definedFromLocalMemory(const FunctionModel& fn, InstId d, int& budget) {
  if (--budget < 0) return false;
  const Inst& in = fn.instructions[d];
  const MemoryEffect& e = in.effect;
  if (e.kind == EffectKind::Load) return e.address >= 0 && fn.values->addressSpace(d, e.address) == Space::Local;
  if (e.kind != EffectKind::None) return false;
  const RegisterUse use = registerUse(in);
  if (use.read.empty() || !use.addressed.empty()) return false;
  for (ValueReg r : use.read)
    if (!fromLocalMemory(fn, r, d, budget)) return false;
  return true;
}

bool fromLocalMemory(const FunctionModel& fn, ValueReg reg, InstId at, int& budget) {
  const std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
  if (defs.empty()) return false;
  for (InstId d : defs)
    if (!definedFromLocalMemory(fn, d, budget)) return false;
  return true;
}

// `reg` at `at` holds what `poll` returned: its one definition; or, when
// `localBranches`, on the paths a thread can take within the iteration, the
// poll and definitions from the thread's local memory (libcu++'s
// local-or-global load: where the address is local there is no poll, and no
// other thread's write reaches the value).
bool holdsPollValue(const FunctionModel& fn, const SpinLoop& spin, ValueReg reg, InstId at, InstId poll,
                    bool localBranches) {
  const std::vector<InstId>& from = fn.values->reachingDefinitions(reg, at);
  if (from.size() == 1 && from[0] == poll) return true;
  if (!localBranches || std::find(from.begin(), from.end(), poll) == from.end()) return false;
  const std::optional<std::vector<InstId>> within = definedWithinIteration(fn, fn.loops[spin.loop], reg, at);
  if (!within || !std::binary_search(within->begin(), within->end(), poll)) return false;
  int budget = 64;
  for (InstId d : *within)
    if (d != poll && !definedFromLocalMemory(fn, d, budget)) return false;
  return true;
}

// The condition `pred` at `at` (holding `holds`) on the value `poll`
// returned, evaluated for `value`. With `onPollOnly`, the question is
// whether the condition holds *on the value* (exitOnValue's second reading,
// for No only): a conjunct or disjunct (and.pred, or.pred) that does not
// depend on the poll (an abort flag polled in the same loop) is left out,
// and the compared register may also come from the local branch of a
// local-or-global load.
std::optional<bool> conditionOnValue(const FunctionModel& fn, const SpinLoop& spin, ValueReg pred, InstId at,
                                     bool holds, InstId poll, int64_t value, bool onPollOnly, int depth = 0) {
  if (depth > 4 || pred < 0) return std::nullopt;
  const std::vector<InstId> defs = fn.values->reachingDefinitions(pred, at);
  if (defs.size() != 1) return std::nullopt;
  const InstId d = defs[0];
  const Inst& def = fn.instructions[d];
  using Kind = ptx::Operand::Kind;
  if (def.opcode() == "not" && def.operands.size() == 2 && def.operands[1].kind == Kind::Register)
    return conditionOnValue(fn, spin, def.operands[1].reg, d, !holds, poll, value, onPollOnly, depth + 1);
  if (onPollOnly && (def.opcode() == "and" || def.opcode() == "or") && def.hasModifier("pred") &&
      def.operands.size() == 3 && (!def.guard || def.guard->reg < 0)) {
    // and holding, or failing: every operand must; otherwise one operand suffices.
    const bool every = (def.opcode() == "and") == holds;
    bool evaluated = false, unknown = false;
    for (int k : {1, 2}) {
      const ptx::Operand& op = def.operands[k];
      if (op.kind != Kind::Register) return std::nullopt;
      if (!valueDependsOn(fn, op.reg, d, {poll})) continue;  // not on the value
      const std::optional<bool> r =
          conditionOnValue(fn, spin, op.reg, d, op.negated ? !holds : holds, poll, value, onPollOnly, depth + 1);
      if (!r) {
        unknown = true;
        continue;
      }
      evaluated = true;
      if (*r != every) return *r;  // one operand decides: failing for `every`, holding otherwise
    }
    if (unknown || !evaluated) return std::nullopt;
    return every;
  }
  if (def.opcode() != "setp" || def.operands.size() != 3 || def.operands[0].kind != Kind::Register) return std::nullopt;
  std::string_view cmp = comparisonOf(*def.syntax);
  if (cmp.empty()) return std::nullopt;
  for (int side : {1, 2}) {
    const ptx::Operand& polled = def.operands[side];
    if (polled.kind != Kind::Register) continue;
    if (!holdsPollValue(fn, spin, polled.reg, d, poll, onPollOnly)) continue;
    const std::optional<std::pair<int64_t, int64_t>> range = fn.values->operandValue(d, 3 - side).numericRange();
    const std::string_view c = side == 1 ? cmp : swappedComparison(cmp);
    std::optional<bool> r;
    if (range) r = compareWithRange(value, c, range->first, range->second);
    // An equality with a count that a dominating branch shows non-zero
    // (NonZeroByGuard.h) never holds on 0.
    const ptx::Operand& other = def.operands[3 - side];
    if (!r && value == 0 && (c == "eq" || c == "ne") && other.kind == Kind::Register &&
        nonZeroByGuard(fn, other.reg, d))
      r = c == "ne";
    if (!r) return std::nullopt;
    return *r == holds;
  }
  return std::nullopt;
}

}  // namespace

bool hasExitWithoutPoll(const SpinLoop& spin, InstId poll) {
  return std::any_of(spin.exitPolls.begin(), spin.exitPolls.end(), [&](const std::vector<InstId>& polls) {
    return !std::binary_search(polls.begin(), polls.end(), poll);
  });
}

bool leavesWithoutPoll(const FunctionModel& fn, const SpinLoop& spin, InstId poll, BlockId from, BlockId to) {
  if (spin.containsBlock(fn, to)) return false;
  bool without = false;
  for (size_t k = 0; k < spin.exitBlocks.size(); ++k) {
    if (spin.exitBlocks[k] != from) continue;
    if (std::binary_search(spin.exitPolls[k].begin(), spin.exitPolls[k].end(), poll)) return false;
    without = true;
  }
  return without;
}

ExitOn exitOnValue(const FunctionModel& fn, const SpinLoop& spin, InstId poll, int64_t value) {
  if (spin.loop < 0 || !fn.values) return ExitOn::Unknown;
  auto reading = [&](bool onPollOnly) {
    bool any = false, unknown = false;
    for (size_t k = 0; k < spin.exitBranches.size(); ++k) {
      // An exit that another poll alone decides is no exit on this value.
      if (onPollOnly && k < spin.exitPolls.size() &&
          !std::binary_search(spin.exitPolls[k].begin(), spin.exitPolls[k].end(), poll))
        continue;
      const BlockId b = fn.blockOf[spin.exitBranches[k]];
      for (BlockId s : fn.blocks[b].successors) {
        if (spin.containsBlock(fn, s)) continue;
        const std::optional<EdgeCondition> edge = edgeCondition(fn, b, s);
        if (!edge) {
          unknown = true;
          continue;
        }
        const std::optional<bool> r =
            conditionOnValue(fn, spin, edge->predicate, edge->branch, edge->value, poll, value, onPollOnly);
        if (!r) unknown = true;
        else if (*r) return ExitOn::Yes;
        any = true;
      }
    }
    return any && !unknown ? ExitOn::No : ExitOn::Unknown;
  };
  const ExitOn first = reading(false);
  if (first != ExitOn::Unknown) return first;
  // No exit leaves on the value itself: the waiters may still leave on an
  // abort flag or another poll, or in a local-memory branch, but not because
  // the word holds `value` (a ready word reset to 0 for the next launch,
  // where the waiters wait for it to reach 2 or for an abort). Only a No is
  // taken from this reading.
  return reading(true) == ExitOn::No ? ExitOn::No : ExitOn::Unknown;
}

std::vector<SpinLoop> findSpinLoops(const FunctionModel& fn) {
  if (!fn.values || !fn.memory) return {};
  std::vector<SpinLoop> spins;
  const std::vector<size_t> writesInLoop = globalWritesPerLoop(fn);
  for (int32_t l = 0; l < static_cast<int32_t>(fn.loops.size()); ++l) {
    SpinLoop spin;
    spin.loop = l;
    std::set<InstId> polls, comparisons;
    for (BlockId b : exitingBlocks(fn, fn.loops[l])) {
      const BasicBlock& block = fn.blocks[b];
      if (block.last <= block.first) continue;
      InstId branch = decidingBranch(fn, spin, b);
      if (branch < 0) continue;
      const Inst& inst = fn.instructions[branch];
      ExitWalk walk{fn, spin, {}, {}, {}, false};
      walk.visit(inst.guard->reg, branch);
      if (walk.carried || walk.polls.empty() || casRetryExit(fn, fn.loops[l], walk.polls, walk.comparisons)) continue;
      polls.insert(walk.polls.begin(), walk.polls.end());
      comparisons.insert(walk.comparisons.begin(), walk.comparisons.end());
      spin.exitBranches.push_back(branch);
      spin.exitBlocks.push_back(b);
      spin.exitPolls.emplace_back(walk.polls.begin(), walk.polls.end());
    }
    if (polls.empty()) continue;
    // The polled address must not change across iterations.
    for (auto it = polls.begin(); it != polls.end();) {
      const MemoryEffect& e = fn.instructions[*it].effect;
      const ptx::Operand& address = fn.instructions[*it].operands[e.address];
      AddressWalk walk{fn, spin, {}};
      bool variant = address.base.kind == ptx::Operand::Kind::Register && walk.variant(address.base.reg, *it);
      it = variant ? polls.erase(it) : std::next(it);
    }
    if (polls.empty()) continue;
    // No global writes other than through a polling atomic, or after the
    // observation (a spin lock's critical section and unlock).
    spin.polls.assign(polls.begin(), polls.end());
    size_t allowedWrites = 0;
    for (InstId poll : polls) allowedWrites += writesGlobalMemory(fn, poll);
    if (writesInLoop[l] > allowedWrites) {
      for (BlockId b : fn.loops[l].blocks) {
        bool writes = false;
        for (InstId i = fn.blocks[b].first; i < fn.blocks[b].last && !writes; ++i)
          writes = writesGlobalMemory(fn, i) && !polls.count(i);
        if (!writes) continue;
        const bool after = std::any_of(polls.begin(), polls.end(),
                                       [&](InstId poll) { return afterObservation(fn, spin, poll, b); });
        if (!after) continue;
        for (InstId i = fn.blocks[b].first; i < fn.blocks[b].last; ++i)
          allowedWrites += writesGlobalMemory(fn, i) && !polls.count(i);
      }
      if (writesInLoop[l] > allowedWrites) continue;
    }
    spin.comparisons.assign(comparisons.begin(), comparisons.end());
    spins.push_back(std::move(spin));
  }
  // The first trips peeled before the loops (a lock's first CAS).
  if (!spins.empty()) {
    std::vector<InstId> atomics;
    for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
      const Inst& inst = fn.instructions[i];
      if (inst.effect.kind == EffectKind::ReadModifyWrite && inst.effect.address > 0 &&
          inst.operands[0].kind == ptx::Operand::Kind::Register && writesGlobalMemory(fn, i))
        atomics.push_back(i);
    }
    for (SpinLoop& spin : spins) spin.peeledPolls = findPeeledPolls(fn, spin, atomics);
  }
  return spins;
}

bool valueDependsOn(const FunctionModel& fn, ValueReg reg, InstId at, const std::vector<InstId>& sources) {
  if (!fn.values) return false;
  std::set<std::pair<ValueReg, InstId>> seen;
  std::vector<std::pair<ValueReg, InstId>> work{{reg, at}};
  while (!work.empty()) {
    model::poll();
    auto [r, where] = work.back();
    work.pop_back();
    if (!seen.insert({r, where}).second || seen.size() > 4096) continue;
    for (InstId d : fn.values->reachingDefinitions(r, where)) {
      if (std::find(sources.begin(), sources.end(), d) != sources.end()) return true;
      const EffectKind kind = fn.instructions[d].effect.kind;
      if (kind != EffectKind::None && kind != EffectKind::CtaBarrier) continue;
      for (ValueReg next : registerUse(fn.instructions[d]).read) work.push_back({next, d});
    }
  }
  return false;
}

}  // namespace fenceline::model
