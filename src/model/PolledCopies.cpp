// Copies of polled words (ProtocolModel::isPolledCopyStore and
// isCopyOfPolledWord, Protocol.h).
//
// A work queue's producers need credit: the consumer index that the queue's
// consumer (the host, a NIC, another block) advances. Each producer keeps a
// cached copy of that index in memory and reads the copy first; when the
// copy leaves too little room it polls the index itself until there is room,
// and stores the value it saw back into the copy (issue 34, NCCL's shape
// U-credit: `gpi_gpu_channel_get_pi`). Every value the copy holds is a value
// the index had. A stale copy is an earlier value of the index: what a read
// of the index itself may return, and the model already takes no read of a
// polled word for data a wait guards (isPollAccess). That holds where the
// copy is read as a cache: its value only decides whether to poll the index
// itself (isCacheCheck). A copy read otherwise matters when stale: NCCL's
// signal offsets are also stored only with a value a poll returned, but a
// wait adds the offset to its target, and a stale offset ends it early. So
// a copy read only by cache checks is no data: reading it after an
// unrelated wait needs no acquire, and storing it before a signal needs no
// release.
//
// The rule holds only where every store of the word is seen and is such a
// copy: one store of another value (a slot, a count) or an atomic on the
// word makes it data again, and an opaque call may store anything. The
// stores of another kernel or of the host are not in the PTX: the rule is
// used only where the partner model takes the kernel's own writes for all
// the partner writes (a wait whose signal is in the kernel; a signal that a
// wait of the kernel reads).
#include <algorithm>

#include "model/Operands.h"
#include "model/Protocol.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using Kind = ptx::Operand::Kind;
constexpr int kMaxDepth = 16;

// One scalar access (no .v2/.v4/.v8): a vector access is several words.
bool isScalar(const Inst& inst) {
  return !inst.hasModifier("v2") && !inst.hasModifier("v4") && !inst.hasModifier("v8");
}

}  // namespace

bool ProtocolModel::holdsPolledValue(ValueReg reg, InstId at, InstId store, int64_t size, int depth,
                                     std::vector<std::pair<ValueReg, InstId>>& seen,
                                     std::vector<InstId>& sources) const {
  if (reg < 0 || depth > kMaxDepth) return false;
  const std::vector<InstId> defs = fn_.values->reachingDefinitions(reg, at);
  if (defs.empty()) return false;  // a parameter, or not defined on some path
  for (InstId d : defs) {
    if (std::find(seen.begin(), seen.end(), std::make_pair(reg, d)) != seen.end()) continue;  // a merge in a loop
    seen.emplace_back(reg, d);
    const Inst& def = fn_.instructions[d];
    const MemoryEffect& e = def.effect;
    // A move: the same value under another name.
    if (def.opcode() == "mov" && e.kind == EffectKind::None && def.operands.size() == 2 &&
        def.operands[1].kind == Kind::Register && !def.operands[1].negated) {
      if (!holdsPolledValue(def.operands[1].reg, d, store, size, depth + 1, seen, sources)) return false;
      continue;
    }
    // An inlined call's parameter or return value: the value its st.param passed.
    if (def.opcode() == "ld" && def.hasModifier("param") && def.boundStore >= 0) {
      const Inst& passed = fn_.instructions[def.boundStore];
      if (passed.operands.size() < 2 || passed.operands[1].kind != Kind::Register) return false;
      if (!holdsPolledValue(passed.operands[1].reg, def.boundStore, store, size, depth + 1, seen, sources))
        return false;
      continue;
    }
    // A load of a polled word, of the stored size, not of the copy's own word.
    if (e.kind != EffectKind::Load || def.opcode() != "ld" || !isScalar(def) || !isPollAccess(d)) return false;
    if (memory_.accessSize(d, e.address) != size || memory_.sameWord(d, store)) return false;
    sources.push_back(d);
  }
  return true;
}

bool ProtocolModel::isPolledCopyStore(InstId store) const {
  const std::vector<InstId>& copies = polledCopyStores();
  return std::binary_search(copies.begin(), copies.end(), store);
}

bool ProtocolModel::computePolledCopyStore(InstId store, std::vector<InstId>& sources) const {
  const Inst& inst = fn_.instructions[store];
  const MemoryEffect& e = inst.effect;
  if (e.kind != EffectKind::Store || inst.opcode() != "st" || e.address < 0 || !isScalar(inst)) return false;
  if (e.proxy == Proxy::Async || inst.operands.empty()) return false;
  const ptx::Operand& value = inst.operands.back();
  if (value.kind != Kind::Register) return false;
  const int64_t size = memory_.accessSize(store, e.address);
  if (size <= 0) return false;
  std::vector<std::pair<ValueReg, InstId>> seen;
  return holdsPolledValue(value.reg, store, store, size, 0, seen, sources);
}

const std::vector<InstId>& ProtocolModel::polledCopyStores() const {
  if (!polledCopyStores_) {
    polledCopyStores_.emplace();
    if (!polledWords_.empty())
      for (InstId w : writes_) {
        std::vector<InstId> sources;
        if (!computePolledCopyStore(w, sources)) continue;
        polledCopyStores_->push_back(w);
      }
  }
  return *polledCopyStores_;
}

bool ProtocolModel::isCopyOfPolledWord(InstId access) const {
  if (copyOfPolledWord_.empty()) copyOfPolledWord_.assign(fn_.instructions.size(), -1);
  int8_t& known = copyOfPolledWord_[access];
  if (known >= 0) return known == 1;
  known = 0;
  const std::vector<InstId>& copies = polledCopyStores();
  // Cheap refusals first: no copy here, a call whose stores are not seen, an
  // access no copy store may touch.
  if (copies.empty() || !calls_.empty() || protocolAddress(fn_, access) < 0) return false;
  std::vector<InstId> mine;  // the copy stores that may write the word
  for (InstId c : copies)
    if (alias(c, access, false) != Alias::No) mine.push_back(c);
  if (mine.empty()) return false;
  for (InstId w : writes_)
    if (!std::binary_search(copies.begin(), copies.end(), w) && alias(w, access, false) != Alias::No) return false;
  // Every read that may read a copy store is a cache check: a spin on the
  // copy, or a use of its value as data, makes a stale copy matter.
  auto readsCopy = [&](InstId r) {
    return std::any_of(mine.begin(), mine.end(), [&](InstId c) { return mayReadWrite(r, c, false); });
  };
  for (InstId p : polledWords_)
    if (readsCopy(p)) return false;
  for (InstId r = 0; r < static_cast<InstId>(fn_.instructions.size()); ++r)
    if (dataRead_[r] && readsCopy(r) && !isCacheCheck(r)) return false;
  known = 1;
  return true;
}

bool ProtocolModel::isCachedCopyPair(InstId write, InstId read) const {
  return isPolledCopyStore(write) && isCacheCheck(read);
}

// The uses of each register (instructions that read it as data or as their
// guard), built on first use.
const std::vector<InstId>& ProtocolModel::usesOf(ValueReg reg) const {
  if (!registerUses_) {
    registerUses_.emplace(fn_.registerNames.size());
    for (InstId i = 0; i < static_cast<InstId>(fn_.instructions.size()); ++i)
      for (ValueReg r : registerUse(fn_.instructions[i]).read)
        if (r >= 0 && static_cast<size_t>(r) < registerUses_->size()) (*registerUses_)[r].push_back(i);
  }
  static const std::vector<InstId> none;
  return reg >= 0 && static_cast<size_t>(reg) < registerUses_->size() ? (*registerUses_)[reg] : none;
}

bool ProtocolModel::isCacheCheck(InstId read) const {
  if (cacheCheck_.empty()) cacheCheck_.assign(fn_.instructions.size(), -1);
  if (cacheCheck_[read] < 0) cacheCheck_[read] = computeCacheCheck(read) ? 1 : 0;
  return cacheCheck_[read] == 1;
}

bool ProtocolModel::computeCacheCheck(InstId read) const {
  const std::vector<InstId>& copies = polledCopyStores();
  const Inst& load = fn_.instructions[read];
  if (copies.empty() || load.effect.kind != EffectKind::Load || !isScalar(load) || load.operands.empty() ||
      load.operands[0].kind != Kind::Register)
    return false;
  // The values computed from the read, through register computations, and the
  // branches they decide.
  std::vector<InstId> derived{read}, branches;
  for (size_t k = 0; k < derived.size(); ++k) {
    if (derived.size() > 64) return false;
    const InstId d = derived[k];
    for (ValueReg reg : writtenRegisters(fn_.instructions[d]))
      for (InstId u : usesOf(reg)) {
        const std::vector<InstId> from = fn_.values->reachingDefinitions(reg, u);
        if (std::find(from.begin(), from.end(), d) == from.end()) continue;
        const Inst& use = fn_.instructions[u];
        if (use.opcode() == "bra") {
          if (!use.guard || use.guard->reg != reg) return false;  // not as the guard: a computed target
          branches.push_back(u);
          continue;
        }
        // A computation: its result is derived too. Not a memory access, a
        // select (the value chosen goes on as data), nor one under a guard of
        // the value (the guard would decide a write).
        if (use.effect.kind != EffectKind::None || use.opcode() == "selp" || !writesOperand0(use) ||
            (use.guard && use.guard->reg == reg))
          return false;
        if (std::find(derived.begin(), derived.end(), u) == derived.end()) derived.push_back(u);
      }
  }
  if (branches.empty()) return false;
  // No branch is a spin's exit: a copy compared inside a spin (a target the
  // spin waits for, `while (signal < offset + 1)`) lets a stale value end the
  // wait early.
  for (const SpinLoop& spin : spins_)
    for (InstId b : branches)
      if (std::find(spin.exitBranches.begin(), spin.exitBranches.end(), b) != spin.exitBranches.end()) return false;
  // Some branch sends the thread to read the copied word itself: a load of a
  // word some copy of this word was stored from, reached from one of the
  // branch's successors (the copy only decides whether to refresh it).
  std::vector<InstId> sources;
  for (InstId c : copies)
    if (alias(c, read, false) != Alias::No) {
      std::vector<InstId> one;
      std::vector<std::pair<ValueReg, InstId>> seen;
      const Inst& st = fn_.instructions[c];
      holdsPolledValue(st.operands.back().reg, c, c, memory_.accessSize(c, st.effect.address), 0, seen, one);
      sources.insert(sources.end(), one.begin(), one.end());
    }
  std::sort(sources.begin(), sources.end());
  // Breadth first: the refresh is next to the test, on one of its sides.
  constexpr size_t kMaxBlocks = 64;
  for (InstId b : branches) {
    std::vector<char> seen(fn_.blocks.size(), 0);
    std::vector<BlockId> queue(fn_.blocks[fn_.blockOf[b]].successors.begin(), fn_.blocks[fn_.blockOf[b]].successors.end());
    size_t visited = 0;
    for (size_t head = 0; head < queue.size() && visited < kMaxBlocks; ++head) {
      const BlockId x = queue[head];
      if (seen[x]) continue;
      seen[x] = 1;
      ++visited;
      const auto first = std::lower_bound(sources.begin(), sources.end(), fn_.blocks[x].first);
      if (first != sources.end() && *first < fn_.blocks[x].last) return true;
      for (BlockId s : fn_.blocks[x].successors) queue.push_back(s);
    }
  }
  return false;
}

AliasEvidence ProtocolModel::polledCopyEvidence() {
  return undecidedPairEvidence(
      "polled-copy",
      "the write stores a value just loaded from a word a spin polls (a cached copy of an index): a stale "
      "copy is an earlier value of that word, which publishes nothing; whether the read reads data rests on "
      "the word's other writes");
}

}  // namespace fenceline::model
