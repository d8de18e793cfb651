// The protocol model (see Protocol.h): spin loops, signals, the partner
// model, ordering and scope, built once per function from the value and
// memory analyses.
#include "model/Protocol.h"
#include "model/ArrivalCountTest.h"
#include "model/UniformModes.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <set>
#include <tuple>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "model/Operands.h"
#include "model/BlockCopiedPointers.h"
#include "model/BranchEdges.h"
#include "model/BroadcastStores.h"
#include "model/DataIndexedFlags.h"
#include "model/DispatchLoops.h"
#include "model/ExitValueSignals.h"
#include "model/FirstTurnWaits.h"
#include "model/MemoryEffect.h"
#include "model/Paths.h"
#include "model/PhaseFlipBarriers.h"
#include "model/ResultUpdates.h"
#include "model/ThreadDecidedBranches.h"
#include "model/Values.h"
#include "model/ValueIdentity.h"

namespace fenceline::model {

namespace {

// --- Memory identity, as the partner model needs it --------------------

int addressOf(const FunctionModel& fn, InstId inst) { return protocolAddress(fn, inst); }

// The same word for every block and thread of the launch: a parameter
// pointer plus a constant (`*done`, `&counters[0]`), no thread or block index.
bool isLaunchUniformParamWord(const FunctionModel& fn, InstId inst) {
  if (!fn.values) return false;
  const AbstractValue& value = fn.values->keptOperandValue(inst, addressOf(fn, inst));
  return value.known && value.baseKind == AbstractValue::BaseKind::Param && value.terms.empty();
}

// --- Small classifications ------------------------------------------------

bool isFlagWrite(const MemoryEffect& e) {
  return e.kind == EffectKind::ReadModifyWrite ||
         (e.kind == EffectKind::Store && e.semantics != Semantics::Weak && e.semantics != Semantics::None);
}

bool isNonCoherent(const Inst& inst) { return inst.hasModifier("nc"); }

bool isLoaded(const MemoryObject& object) { return object.kind == MemoryObject::Kind::Loaded; }

// Two choices of objects (model/Memory.h's alternatives: fields of a by-value
// struct picked at run time) that share one.
bool sharesAChoice(const MemoryObject& a, const MemoryObject& b) {
  if (a.alternatives.empty() && b.alternatives.empty()) return false;
  auto choices = [](const MemoryObject& o) { return o.alternatives.empty() ? std::vector<std::string>{o.name} : o.alternatives; };
  const std::vector<std::string> x = choices(a), y = choices(b);
  return a.kind == b.kind && std::any_of(x.begin(), x.end(), [&](const std::string& n) {
           return std::find(y.begin(), y.end(), n) != y.end();
         });
}

// `entry` is the root of pointers read from `table` (MemoryAnalysis names a
// loaded root after the root it was read from).
bool isEntryOf(const MemoryObject& entry, const MemoryObject& table) {
  constexpr std::string_view kOpen = "loaded(";
  const std::string_view name = entry.name;
  return isLoaded(entry) && table.known() && name.size() == kOpen.size() + table.name.size() + 1 &&
         name.starts_with(kOpen) && name.ends_with(')') && name.substr(kOpen.size(), table.name.size()) == table.name;
}

}  // namespace

bool hasAcquireSemantics(const MemoryEffect& e) {
  return e.semantics == Semantics::Acquire || e.semantics == Semantics::AcqRel || e.semantics == Semantics::Sc;
}

bool hasReleaseSemantics(const MemoryEffect& e) {
  return e.semantics == Semantics::Release || e.semantics == Semantics::AcqRel || e.semantics == Semantics::Sc;
}

bool isAcquireFence(const FunctionModel& fn, InstId inst) {
  const MemoryEffect& e = fn.instructions[inst].effect;
  return e.kind == EffectKind::Fence && hasAcquireSemantics(e);
}

bool isReleaseFence(const FunctionModel& fn, InstId inst) {
  const MemoryEffect& e = fn.instructions[inst].effect;
  return e.kind == EffectKind::Fence && hasReleaseSemantics(e);
}

namespace {

bool readsGlobalAsync(const MemoryEffect& e) {
  return e.kind == EffectKind::AsyncCopy && e.source >= 0 &&
         (e.sourceSpace == Space::Global || e.sourceSpace == Space::Generic);
}

// Where the value analysis narrows a global or generic access's address to
// another space (shared, local), the access is not of global memory.
bool narrowedAwayFromGlobal(const FunctionModel& fn, InstId inst, int operand) {
  if (!fn.values || operand < 0) return false;
  const Space narrowed = fn.values->addressSpace(inst, operand);
  return narrowed != Space::None && narrowed != Space::Global && narrowed != Space::Generic;
}

// A floating-point type modifier (the value of the access is a number, not
// a flag or a count).
bool hasFloatType(const Inst& in) {
  static constexpr std::string_view kFloatTypes[] = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"};
  return std::any_of(std::begin(kFloatTypes), std::end(kFloatTypes),
                     [&](std::string_view t) { return in.hasModifier(t); });
}

}  // namespace

int protocolAddress(const FunctionModel& fn, InstId inst) {
  const MemoryEffect& e = fn.instructions[inst].effect;
  return readsGlobalAsync(e) ? e.source : e.address;
}

bool isDataRead(const FunctionModel& fn, InstId inst) {
  const MemoryEffect& e = fn.instructions[inst].effect;
  if (readsGlobalAsync(e)) return !narrowedAwayFromGlobal(fn, inst, e.source);
  if (e.kind != EffectKind::Load) return false;
  if (e.space != Space::Global && e.space != Space::Generic) return false;
  return !narrowedAwayFromGlobal(fn, inst, e.address);
}

bool isDataUpdate(const FunctionModel& fn, InstId inst) {
  const Inst& in = fn.instructions[inst];
  const MemoryEffect& e = in.effect;
  if (e.kind != EffectKind::ReadModifyWrite || e.address < 0) return false;
  if (e.space != Space::Global && e.space != Space::Generic) return false;
  return hasFloatType(in) && !narrowedAwayFromGlobal(fn, inst, e.address);
}

const ProtocolModel& protocolOf(const FunctionModel& fn) { return *fn.protocol; }

// --- Construction ---------------------------------------------------------

ProtocolModel::ProtocolModel(const FunctionModel& function) : fn_(function), memory_(*function.memory) {
  const auto count = static_cast<InstId>(fn_.instructions.size());
  spins_ = findSpinLoops(fn_);
  spinOfPoll_.assign(fn_.instructions.size(), -1);
  writtenByKernel_.assign(fn_.instructions.size(), -1);
  pointerLoad_.assign(fn_.instructions.size(), kNotWalked);
  rootOf_.assign(fn_.instructions.size(), 0);
  for (size_t s = 0; s < spins_.size(); ++s)
    for (InstId poll : spins_[s].polls)
      if (spinOfPoll_[poll] < 0) spinOfPoll_[poll] = static_cast<int32_t>(s);
  for (const auto& spin : spins_) polledWords_.insert(polledWords_.end(), spin.polls.begin(), spin.polls.end());
  std::sort(polledWords_.begin(), polledWords_.end());
  polledWords_.erase(std::unique(polledWords_.begin(), polledWords_.end()), polledWords_.end());
  // Every access to a polled word, found once through the address identities
  // (an O(1) isPollAccess: the checks ask it for every instruction of every
  // path from every poll).
  std::unordered_map<int32_t, std::vector<InstId>> pollsByAddress;
  for (InstId poll : polledWords_)
    if (int32_t id = fn_.values->identity(poll, addressOf(fn_, poll)); id >= 0) pollsByAddress[id].push_back(poll);
  peeledPoll_.assign(fn_.instructions.size(), 0);
  for (const auto& spin : spins_)
    for (InstId attempt : spin.peeledPolls) peeledPoll_[attempt] = 1;
  pollAccess_.assign(fn_.instructions.size(), 0);
  for (InstId poll : polledWords_) pollAccess_[poll] = 1;
  for (InstId i = 0; i < count && !pollsByAddress.empty(); ++i) {
    if (pollAccess_[i]) continue;
    int operand = addressOf(fn_, i);
    if (operand < 0 || fn_.instructions[i].operands[operand].kind != ptx::Operand::Kind::Address) continue;
    auto same = pollsByAddress.find(fn_.values->identity(i, operand));
    if (same == pollsByAddress.end()) continue;
    for (InstId poll : same->second)
      if (memory_.sameWord(i, poll)) pollAccess_[i] = 1;
  }
  // FENCELINE_DEBUG_SPINS=1 lists the spin loops found (for triaging real code).
  const bool debug = std::getenv("FENCELINE_DEBUG_SPINS") != nullptr;
  if (debug)
    for (const auto& spin : spins_)
      for (InstId poll : spin.polls)
        fmt::print(stderr, "spin loop {} in {}: poll at PTX line {}, {}, root {}\n", spin.loop,
                   fn_.function ? fn_.function->name : "?", fn_.instructions[poll].syntax->pos.line,
                   memory_.location(poll, addressOf(fn_, poll)).toString(), root(poll).toString());
  if (debug)
    for (const auto& spin : spins_)
      for (InstId attempt : spin.peeledPolls)
        fmt::print(stderr, "spin loop {} in {}: first trip peeled at PTX line {}\n", spin.loop,
                   fn_.function ? fn_.function->name : "?", fn_.instructions[attempt].syntax->pos.line);

  for (InstId i = 0; i < count; ++i) {
    const MemoryEffect& e = fn_.instructions[i].effect;
    if (opaqueCallMayFence(i)) calls_.push_back(i);
    // A write no thread makes (a never-run remainder iteration) signals
    // nothing and publishes nothing.
    if (!writesGlobalMemory(fn_, i)) continue;
    globalWrites_.push_back(i);
    if (neverRuns(fn_, i)) continue;
    writes_.push_back(i);
    // The signalling side only: a spin's own read-modify-write (a lock's
    // taking CAS, `while (atomicCAS_system(l, 0, 1) != 0)`) is the waiter's,
    // and a waiter's over-strong .sys shows no partner off the GPU.
    if (e.scope == Scope::Sys && e.semantics != Semantics::Volatile && isSignalCandidate(i))
      systemSignalling_.push_back(i);
    // A flag raised through a pointer of a table indexed by a group of blocks
    // may be raised on another GPU too: the polls' scope is not decided.
    if (isFlagWrite(e) && peerPointer(i) != Peer::No) raisesPeerFlags_ = true;
  }
  pollIndex_ = wordIndex(polledWords_);
  for (InstId w : writes_) {
    const Inst& r = fn_.instructions[w];
    if (r.effect.kind == EffectKind::ReadModifyWrite && r.effect.address > 0 &&
        r.operands[0].kind == ptx::Operand::Kind::Register && (r.hasModifier("add") || r.hasModifier("inc")) &&
        !isFloatingPointData(w) && !isIdentityUpdate(w))
      reservations_.push_back(w);
  }
  for (InstId i : writes_) {
    const bool plain = isPlainStoreSignal(i);
    if (!plain && !isSignalCandidate(i)) continue;
    const std::vector<InstId> near = candidates(pollIndex_, i);
    bool polled = std::any_of(near.begin(), near.end(), [&](InstId p) { return maySameWord(i, p); });
    if (polled && isPolledWordReset(i)) continue;  // satisfies no waiter (counter-reset's question)
    if (plain) {
      if (polled) signals_.push_back(i);
      continue;
    }
    if (polled) signals_.push_back(i);
    else if (isOutboundSignal(i) || isFifoTrigger(i)) outboundSignals_.push_back(i);
  }
  signalIndex_ = wordIndex(signals_);
  for (InstId i : writes_)
    if (isFlagWrite(fn_.instructions[i].effect) && !isFloatingPointData(i) && !isPoll(i) &&
        isTranslatedPeerAddress(i))
      translatedFlagWrites_.push_back(i);
  findTickets();
  if (debug)
    for (const auto& [ticket, branches] : ticketBranches_)
      for (InstId b : branches)
        fmt::print(stderr, "ticket in {}: atomic at PTX line {} decides the branch at PTX line {}\n",
                   fn_.function ? fn_.function->name : "?", fn_.instructions[ticket].syntax->pos.line,
                   fn_.instructions[b].syntax->pos.line);
  // A constant stored to the word a ticket of this kernel counts on is the
  // count's reset (a generation barrier's last arriver zeroes the count
  // before it bumps the generation): its partner is this kernel's next
  // arrivals, not the host.
  if (!tickets_.empty())
    outboundSignals_.erase(std::remove_if(outboundSignals_.begin(), outboundSignals_.end(),
                                          [&](InstId i) {
                                            if (!storedConstant(i)) return false;
                                            return std::any_of(tickets_.begin(), tickets_.end(), [&](InstId t) {
                                              return memory_.sameWord(t, i);
                                            });
                                          }),
                           outboundSignals_.end());
  afterWait_.resize(polledWords_.size());
  dataRead_.assign(fn_.instructions.size(), 0);
  dataReadRank_.assign(fn_.instructions.size(), 0);
  for (InstId i = 0; i < count; ++i)
    if ((dataRead_[i] = isDataRead(fn_, i) || isDataUpdate(fn_, i))) dataReadRank_[i] = dataReadCount_++;
}

// What follows a wait: the reads it guards, and whether any data access
// follows at all. Computed on first use (only the polls of signals need it).
const ProtocolModel::AfterWait& ProtocolModel::afterWait(InstId poll) const {
  size_t k = std::lower_bound(polledWords_.begin(), polledWords_.end(), poll) - polledWords_.begin();
  AfterWait& after = afterWait_[k];
  if (after.computed) return after;
  after.computed = true;
  const SpinLoop* spin = spinContaining(poll);
  auto visit = [&](BlockId b, InstId from) {
    // The spin's own code, not its way out (asked once per block).
    const bool inSpin = spin && spin->containsBlock(fn_, b) && !afterObservation(fn_, *spin, poll, b);
    for (InstId i = from; i < fn_.blocks[b].last; ++i) {
      if (isGuardedRead(i, poll)) after.guardedReads.push_back(i);
      bool access = dataRead_[i] || writesGlobalMemory(fn_, i);
      if (access && !inSpin && !isPollAccess(i) && !memory_.sameWord(i, poll)) after.dataFollows = true;
    }
  };
  // Not past an exit that other polls of the spin decide alone (issue 34,
  // NVSHMEM shape X): what lies there does not follow this poll's observation.
  const bool otherExits = spin && hasExitWithoutPoll(*spin, poll);
  auto follow = [&](BlockId b, BlockId s) { return !otherExits || !leavesWithoutPoll(fn_, *spin, poll, b, s); };
  std::vector<char> seen(fn_.blocks.size(), 0);
  BlockId start = fn_.blockOf[poll];
  visit(start, poll + 1);
  std::vector<BlockId> work;
  for (BlockId s : fn_.blocks[start].successors)
    if (follow(start, s)) work.push_back(s);
  while (!work.empty()) {
    model::poll();
    BlockId b = work.back();
    work.pop_back();
    if (seen[b]) continue;
    seen[b] = 1;
    visit(b, fn_.blocks[b].first);
    for (BlockId s : fn_.blocks[b].successors)
      if (follow(b, s)) work.push_back(s);
  }
  return after;
}

// A plain (weak) store of one integer word that this kernel's acquire polls
// read (issue 34): `__syncthreads(); if (tid == 0) lock[i] = 1 - count;`
// observed by `ld.acquire` spins of other blocks. The polls' acquire says the
// word is a synchronization word; the store is its signal, one without
// release. A constant that no acquire poll of the word decidedly leaves on (a
// reset, a stored initial state) is not taken for a signal here.
// The two accesses' addresses have one form: the same base, the same constant
// and terms of the same coefficients (`locks + 4*slice` for the store and the
// poll, the slice from different definitions on the way), not two fields of
// one structure at different offsets.
bool ProtocolModel::sameAddressShape(InstId a, InstId b) const {
  const int oa = addressOf(fn_, a), ob = addressOf(fn_, b);
  if (oa < 0 || ob < 0) return false;
  const AbstractValue &x = fn_.values->keptOperandValue(a, oa), &y = fn_.values->keptOperandValue(b, ob);
  if (!x.known || !y.known || !x.hasBase() || x.baseKind != y.baseKind || x.base != y.base ||
      x.constant != y.constant || x.terms.size() != y.terms.size())
    return false;
  std::vector<int64_t> cx, cy;
  for (const auto& t : x.terms) cx.push_back(t.coefficient);
  for (const auto& t : y.terms) cy.push_back(t.coefficient);
  std::sort(cx.begin(), cx.end());
  std::sort(cy.begin(), cy.end());
  return cx == cy;
}

bool ProtocolModel::isPlainStoreSignal(InstId i) const {
  const Inst& in = fn_.instructions[i];
  const MemoryEffect& e = in.effect;
  if (e.kind != EffectKind::Store || (e.semantics != Semantics::Weak && e.semantics != Semantics::None)) return false;
  if (e.space != Space::Global && e.space != Space::Generic) return false;
  if (in.hasModifier("v2") || in.hasModifier("v4") || in.hasModifier("v8") || isFloatingPointData(i) || isPoll(i))
    return false;
  const std::optional<int64_t> value = storedConstant(i);
  bool acquired = false;
  for (InstId p : candidates(pollIndex_, i)) {
    if (p == i || !hasAcquireSemantics(fn_.instructions[p].effect) || !maySameWord(i, p)) continue;
    const SpinLoop* spin = spinContaining(p);
    if (!spin || spin->contains(fn_, i)) continue;
    if (value && exitOnValue(fn_, *spin, p, *value) != ExitOn::Yes) continue;
    // Not merely one buffer at offsets not provably apart: a workspace that
    // holds flags and data (a metadata store next to a polled flag), two
    // fields of one structure.
    if (!memory_.sameWord(i, p) && !sameAddressShape(i, p)) continue;
    acquired = true;
    break;
  }
  return acquired;
}

// A waiter's attempt, in the loop or peeled before it (a lock's taking CAS),
// is no signal: no waiter leaves its loop on another's taking CAS.
bool ProtocolModel::isSignalCandidate(InstId i) const {
  return isFlagWrite(fn_.instructions[i].effect) && !isFloatingPointData(i) && !isPoll(i) && !isPeeledPoll(i) &&
         !isConsumingDecrement(i) && !isIdentityUpdate(i);
}

// The partner is outside the kernel (the host through mapped memory, a later
// kernel) when no poll here reads the flag. Judged only on clear evidence: one
// word of a parameter object, the same for every thread, written by a
// volatile/relaxed/stronger store, by an atomic at explicit .sys scope, or by
// an atomic that sets the word to one value for the whole launch
// (isLaunchValuePublish). A relaxed .gpu counter (a count of results, a work
// index) is not evidence.
bool ProtocolModel::isOutboundSignal(InstId i) const {
  const MemoryEffect& e = fn_.instructions[i].effect;
  // The update of a result (a .sys max of thread data) is no flag at any scope.
  if (e.kind == EffectKind::ReadModifyWrite && isResultUpdate(fn_, i)) return false;
  if (e.kind == EffectKind::ReadModifyWrite && e.scope != Scope::Sys && !isLaunchValuePublish(i)) return false;
  return root(i).kind == MemoryObject::Kind::Param && isLaunchUniformParamWord(fn_, i);
}

// An integer exchange, max or min (`atomicExch(done, 1)`, `atomicMax(epoch,
// iteration)`) whose operand is a constant or a scalar parameter: it sets the
// word to a value that means "this launch got here", a flag, not data (a max
// of thread data is a reduction: its operand varies by thread) and not a
// count (an add).
bool ProtocolModel::isLaunchValuePublish(InstId i) const {
  const Inst& inst = fn_.instructions[i];
  static constexpr std::string_view kSetting[] = {"exch", "max", "min"};
  if (!std::any_of(std::begin(kSetting), std::end(kSetting), [&](std::string_view m) { return inst.hasModifier(m); }) ||
      inst.hasModifier("f32") || inst.hasModifier("f64") || inst.hasModifier("f16") || inst.hasModifier("bf16"))
    return false;
  const int value = static_cast<int>(inst.operands.size()) - 1;
  if (value <= inst.effect.address) return false;
  if (fn_.values->constantOf(i, value)) return true;
  const ptx::Operand& op = inst.operands[value];
  if (op.kind != ptx::Operand::Kind::Register) return false;
  const InstId def = fn_.values->definition(op.reg, i);
  if (def < 0 || !fn_.function || !fn_.function->isEntry) return false;
  // A kernel's own parameter (not a .func's, bound to what its caller passed).
  const Inst& load = fn_.instructions[def];
  return load.opcode() == "ld" && load.hasModifier("param") && load.boundStore < 0 && load.origin == fn_.function;
}

// --- Queries --------------------------------------------------------------

const SpinLoop* ProtocolModel::spinContaining(InstId inst) const {
  if (inst < 0 || static_cast<size_t>(inst) >= spinOfPoll_.size() || spinOfPoll_[inst] < 0) return nullptr;
  return &spins_[spinOfPoll_[inst]];
}

bool ProtocolModel::isPeeledPoll(InstId inst) const {
  return inst >= 0 && static_cast<size_t>(inst) < peeledPoll_.size() && peeledPoll_[inst];
}

bool ProtocolModel::isPollAccess(InstId inst) const {
  return inst >= 0 && static_cast<size_t>(inst) < pollAccess_.size() && pollAccess_[inst];
}

// Two fields of one struct reached through the same pointer expression
// (`&sem->inbound`, `&sem->expected` with sem = sems + blockIdx.x): the same
// base and variable terms, constant offsets that keep the accesses apart.
// (Local until MemoryAnalysis::alias answers it for accesses whose size it
// does not know.)
bool ProtocolModel::disjointFields(InstId a, int oa, InstId b, int ob) const {
  const AbstractValue &va = fn_.values->keptOperandValue(a, oa), &vb = fn_.values->keptOperandValue(b, ob);
  if (!va.known || !vb.known || !va.hasBase() || va.baseKind != vb.baseKind || va.base != vb.base) return false;
  if (va.terms.size() != vb.terms.size()) return false;
  for (size_t t = 0; t < va.terms.size(); ++t)
    if (va.terms[t].name != vb.terms[t].name || va.terms[t].coefficient != vb.terms[t].coefficient) return false;
  const int64_t sizeA = memory_.accessSize(a, oa) > 0 ? memory_.accessSize(a, oa) : 4;
  const int64_t sizeB = memory_.accessSize(b, ob) > 0 ? memory_.accessSize(b, ob) : 4;
  return va.constant + sizeA <= vb.constant || vb.constant + sizeB <= va.constant;
}

const MemoryObject& ProtocolModel::root(InstId inst) const {
  if (const uint32_t known = rootOf_[inst]) return roots_[known - 1];
  const int operand = addressOf(fn_, inst);
  MemoryObject object = operand < 0 ? MemoryObject() : memory_.rootOf(inst, operand);
  // A choice's name spells its alternatives (MemoryObject::alternatives).
  auto [id, added] = rootIds_.try_emplace(
      std::make_tuple(static_cast<int>(object.kind), static_cast<int>(object.space), object.alternatives.size(),
                      object.name),
      static_cast<uint32_t>(roots_.size()));
  if (added) roots_.push_back(std::move(object));
  rootOf_[inst] = id->second + 1;
  return roots_[id->second];
}

// model/Memory's answer, with one coarsening: pointers read from memory
// (peer-table entries, struct-held pointers) compare by their table, since
// two entries read by different threads or ranks may point into one peer
// buffer (flags[tid] on one rank, flags[rank] on another). Two facts keep
// No: an entry does not point into its own table, and pointers read from two
// distinct fields of one record are two objects (pointersFromDistinctFields).
// Asked for the same pairs from many walks (every signal's backward walk
// meets the same writes and reads, and a signal's polls are the poll's
// signals): answered once per pair, in either order (the answer is symmetric).
Alias ProtocolModel::alias(InstId a, InstId b, bool keepNo) const {
  if (b < a) std::swap(a, b);
  if (const uint32_t known = pairBits(a, b) & 7) return static_cast<Alias>(known - 1);
  const Alias result = computeAlias(a, b);
  if (!keepNo && result == Alias::No) return result;
  setPairBits(a, b, 7, static_cast<uint32_t>(result) + 1);
  return result;
}

uint32_t ProtocolModel::pairBits(InstId lo, InstId hi) const {
  const uint32_t* known = pairs_.find(uint32_t(lo), uint32_t(hi));
  return known ? *known : 0;
}

// Sets the bits of `mask` to `bits`: read again, since computing one field
// may have set another of the same pair.
void ProtocolModel::setPairBits(InstId lo, InstId hi, uint32_t mask, uint32_t bits) const {
  uint32_t& known = pairs_.slot(uint32_t(lo), uint32_t(hi));
  known = (known & ~mask) | bits;
}

Alias ProtocolModel::computeAlias(InstId a, InstId b) const {
  int oa = addressOf(fn_, a), ob = addressOf(fn_, b);
  if (oa < 0 || ob < 0) return Alias::May;
  Alias precise = memory_.alias(a, oa, b, ob);
  if (precise == Alias::Must) return Alias::Must;
  if (precise == Alias::May && disjointFields(a, oa, b, ob)) return Alias::No;
  const MemoryObject &ra = root(a), &rb = root(b);
  if (!isLoaded(memory_.objectOf(a, oa)) && !isLoaded(memory_.objectOf(b, ob)) && !isLoaded(ra) && !isLoaded(rb))
    return precise;
  if (isEntryOf(ra, rb) || isEntryOf(rb, ra)) return Alias::No;
  if (precise == Alias::No && pointersFromDistinctFields(a, b)) return Alias::No;
  if ((entriesOfOneTable(a, b) || throughOneFixedPointer(a, b)) && memory_.offsetsApart(a, oa, b, ob))
    return Alias::No;
  return Alias::May;
}

AliasEvidence ProtocolModel::aliasEvidence(InstId a, InstId b) const {
  // Asked again for the links of each finding: answered once.
  const uint64_t key = (uint64_t(uint32_t(a)) << 32) | uint32_t(b);
  if (const uint32_t* known = aliasEvidence_.find(key)) return aliasEvidenceStore_[*known];
  AliasEvidence e = aliasEvidence(a, addressOf(fn_, a), b, addressOf(fn_, b));
  aliasEvidence_.insert(key, static_cast<uint32_t>(aliasEvidenceStore_.size()));
  return aliasEvidenceStore_.emplace_back(std::move(e));
}

ProtocolModel::AliasFacts ProtocolModel::aliasFacts(InstId a, InstId b) const {
  const InstId lo = std::min(a, b), hi = std::max(a, b);
  const unsigned shift = a <= b ? 3 : 13;
  if (const uint32_t known = (pairBits(lo, hi) >> shift) & 0x3ff)
    return AliasFacts{static_cast<Alias>((known >> 1) & 3), (known & 8) != 0, aliasHows_[known >> 4]};
  const AliasEvidence e = aliasEvidence(a, addressOf(fn_, a), b, addressOf(fn_, b), /*withDetail=*/false);
  size_t how = std::find(aliasHows_.begin(), aliasHows_.end(), e.how) - aliasHows_.begin();
  if (how == aliasHows_.size()) aliasHows_.push_back(e.how);
  if (how < kPairHows) {
    const uint32_t packed = 1u | static_cast<uint32_t>(e.result) << 1 | (e.decided ? 8u : 0u) | uint32_t(how) << 4;
    setPairBits(lo, hi, 0x3ffu << shift, packed << shift);
  }
  return AliasFacts{e.result, e.decided, aliasHows_[how]};
}

// The table a pointer was read from: the root its load's address is based
// on, through any pointers read on the way (`boxes[peer]->inbound` and
// `boxes[rank]->inbound` are both the `inbound` field of an entry of
// `boxes`), with the constant field offset read at each level; its number
// in pointerTables_ (kNoTable: none). Found once per instruction
// (aliasEvidence asks it for every pair of loaded pointers).
uint32_t ProtocolModel::pointerTableOf(InstId inst, int operand) const {
  auto compute = [&]() -> std::string {
    std::string key;
    std::string name = memory_.objectOf(inst, operand).name;
    for (int depth = 0; depth < 4; ++depth) {
      const InstId load = fn_.values->pointerLoad(name);
      if (load < 0) return {};
      const AbstractValue& slot = fn_.values->keptOperandValue(load, addressOf(fn_, load));
      if (!slot.known || !slot.hasBase()) return {};
      key += "+" + std::to_string(slot.constant);
      if (slot.baseKind != AbstractValue::BaseKind::Loaded) return slot.base.str() + key;
      name = memory_.objectOf(load, addressOf(fn_, load)).name;
    }
    return {};
  };
  auto intern = [&](std::string table) {
    auto [it, added] = pointerTableIds_.try_emplace(std::move(table), static_cast<uint32_t>(pointerTables_.size()));
    if (added) pointerTables_.push_back(&it->first);
    return it->second;
  };
  if (pointerTables_.empty()) intern({});  // kNoTable
  if (operand != addressOf(fn_, inst)) return intern(compute());
  if (pointerTable_.empty()) pointerTable_.assign(fn_.instructions.size(), 0);
  uint32_t& known = pointerTable_[inst];
  if (known == 0) known = intern(compute()) + 1;
  return known - 1;
}

AliasEvidence ProtocolModel::aliasEvidence(InstId a, int oa, InstId b, int ob, bool withDetail) const {
  AliasEvidence e;
  const bool addresses = oa == addressOf(fn_, a) && ob == addressOf(fn_, b);
  e.result = addresses ? alias(a, b) : (oa < 0 || ob < 0 ? Alias::May : memory_.alias(a, oa, b, ob));
  if (e.result == Alias::No && !addresses && (oa >= 0 && ob >= 0)) {
    // Memory's No between pointers read from one table is the partner model's May.
    if (isLoaded(memory_.objectOf(a, oa)) && isLoaded(memory_.objectOf(b, ob))) e.result = Alias::May;
  }
  if (e.result == Alias::No) {
    e.decided = true;
    e.how = "disjoint";
    return e;
  }
  if (oa < 0 || ob < 0) {
    e.how = "unknown-pointer";
    e.detail = "an access whose address the analysis cannot read";
    return e;
  }
  AliasEvidence precise = memory_.aliasEvidence(memory_.accessLocation(a, oa), memory_.accessLocation(b, ob), withDetail);
  if (precise.decided && precise.result != Alias::No) {
    // One buffer, unless its pages are selected by different values, or its
    // pointer, read from memory, would have to be read twice with two values
    // for the bytes to meet: then undecided, whatever the pointer tables
    // below would say of the base.
    memory_.undecidePageSelectors(precise, a, oa, b, ob, withDetail);
    undecideRereadPointer(precise, a, oa, b, ob, withDetail);
    if (!precise.decided) precise.result = e.result;
    return precise;
  }
  // The partner model's coarsening: pointers read from one table (or two
  // choices of one by-value table that share an entry), at least one of them
  // reached by a rank- or peer-varying index.
  const MemoryObject &oaObject = memory_.objectOf(a, oa), &obObject = memory_.objectOf(b, ob);
  const uint32_t tableId = isLoaded(oaObject) && isLoaded(obObject) ? pointerTableOf(a, oa) : kNoTable;
  const bool oneTable =
      (tableId != kNoTable && tableId == pointerTableOf(b, ob)) || sharesAChoice(oaObject, obObject);
  if (sharesAChoice(oaObject, obObject)) {
    e.decided = true;
    e.how = "same-table-entry";
    if (withDetail)
      e.detail = fmt::format("both pick a pointer from one table ({} and {}), and the choices share an entry",
                             oaObject.toString(), obObject.toString());
    return e;
  }
  const Peer peerA = oneTable ? peerPointer(a) : Peer::No, peerB = oneTable ? peerPointer(b) : Peer::No;
  auto decidedPeer = [](Peer p) { return p == Peer::Yes || p == Peer::Unknown; };
  // An index computed from the block's position varies between the partner
  // blocks as a rank does between ranks: the entries meet, on this GPU.
  if (oneTable && !decidedPeer(peerA) && !decidedPeer(peerB) &&
      (peerA == Peer::BlockGroup || peerB == Peer::BlockGroup)) {
    e.decided = true;
    e.how = "block-group-table";
    if (withDetail)
      e.detail = fmt::format("both go through entries of one pointer table ({}) at indices computed from the "
                             "block's position: the entry another block writes through is the one this block reads",
                             tableId == kNoTable ? oaObject.toString() : *pointerTables_[tableId]);
    return e;
  }
  if (oneTable && (decidedPeer(peerA) || decidedPeer(peerB))) {
    e.decided = true;
    e.how = "peer-table";
    if (withDetail)
      e.detail = fmt::format("both go through entries of one pointer table ({}): on the partner's rank, the entry "
                             "it writes through is this rank's buffer",
                             tableId == kNoTable ? oaObject.toString() : *pointerTables_[tableId]);
    return e;
  }
  if (precise.result == Alias::No) {
    precise.how = oneTable ? "same-table" : "partner-model";
    precise.detail = oneTable ? "two pointers read from one table may point into one buffer"
                              : "the partner model takes the two accesses to meet";
  }
  precise.result = e.result;
  precise.decided = false;
  return precise;
}

bool ProtocolModel::exclusiveModes(InstId a, InstId b) const {
  if (!modes_) modes_ = std::make_shared<UniformModes>(fn_);
  return modes_->exclusive(a, b);
}

bool ProtocolModel::exclusiveModesInBlock(InstId a, InstId b) const {
  if (!modes_) modes_ = std::make_shared<UniformModes>(fn_);
  return modes_->exclusiveInBlock(a, b);
}

std::string ProtocolModel::modeCondition(InstId a, InstId b) const {
  if (!modes_) modes_ = std::make_shared<UniformModes>(fn_);
  return modes_->separatingCondition(a, b);
}

ProtocolModel::Link ProtocolModel::observedSignal(InstId poll) const {
  auto [known, fresh] = observedSignal_.try_emplace(poll);
  Link& link = known->second;  // a reference outlives a rehash
  if (fresh) link = computeObservedSignal(poll);
  return link;
}

ProtocolModel::Link ProtocolModel::computeObservedSignal(InstId poll) const {
  Link best;
  for (InstId s : inKernelSignalsFor(poll)) {
    if (exclusiveModes(s, poll)) continue;  // the other mode of the launch raises it
    const AliasFacts e = aliasFacts(s, poll);
    if (e.result == Alias::No) {
      if (const MemoryAnalysis::BlockDistance d = flagDistance(s, poll); d.found()) return {s, flagDistanceEvidence(d)};
      continue;
    }
    if (e.decided) return {s, aliasEvidence(s, poll)};
    if (best.inst < 0) best = {s, aliasEvidence(s, poll)};
  }
  // The partner's signal seen through symmetric addressing: a call given
  // this flag's address, or a peer's copy of the same field.
  if (InstId call = callPassing(poll); call >= 0) {
    AliasEvidence e;
    e.decided = true;
    e.how = "call-argument";
    e.detail = "the kernel passes the flag's address to a call it cannot see into (a put or signal of a "
               "communication library): the peers' copies of this kernel raise it there";
    return {call, e};
  }
  if (InstId mirror = peerMirrorSignal(poll); mirror >= 0) {
    if (isDecidedPeerMirror(mirror)) {
      AliasEvidence e;
      e.decided = true;
      e.how = "peer-mirror";
      e.detail = "the kernel raises the same field of another rank's copy of this structure through a peer pointer";
      return {mirror, e};
    }
    // Through a pointer the walk lost: undecided (no in-kernel signal was
    // decided either, or the loop above returned it).
    return {mirror, untracedMirrorEvidence()};
  }
  return best;
}

bool ProtocolModel::callPasses(InstId call, InstId access) const {
  const int operand = addressOf(fn_, access);
  if (operand < 0) return false;
  // The access's base, found once (its value is the same for every call).
  auto [known, first] = accessBase_.try_emplace(access);
  if (first) {
    const AbstractValue& target = fn_.values->keptOperandValue(access, operand);
    if (target.known && target.hasBase()) known->second.emplace(static_cast<int>(target.baseKind), target.base);
  }
  if (!known->second) return false;
  const std::pair<int, std::string>& target = *known->second;
  // The bases of the call's pointer arguments (the st.param instructions right
  // before it), found once per call.
  auto [bases, fresh] = callArgumentBases_.try_emplace(call);
  if (fresh) {
    const InstId first = fn_.blocks[fn_.blockOf[call]].first;
    for (InstId i = call - 1; i >= first; --i) {
      const Inst& arg = fn_.instructions[i];
      if (arg.opcode() != "st" || !arg.hasModifier("param") || arg.operands.size() < 2) break;
      const AbstractValue& value = fn_.values->keptOperandValue(i, 1);
      if (value.known && value.hasBase()) bases->second.emplace_back(static_cast<int>(value.baseKind), value.base);
    }
  }
  return std::any_of(bases->second.begin(), bases->second.end(), [&](const auto& b) { return b == target; });
}

InstId ProtocolModel::callPassing(InstId access) const {
  for (InstId call : calls_)
    if (callPasses(call, access)) return call;
  return -1;
}

bool ProtocolModel::isPeerMirror(InstId peerAccess, InstId ownAccess) const {
  const int po = addressOf(fn_, ownAccess), so = addressOf(fn_, peerAccess);
  if (po < 0 || so < 0 || !goesThroughPeerPointer(peerAccess)) return false;
  // The own side is decidedly this rank's copy: no pointer on its way may be
  // a peer's (a peer table's entry, one of a table indexed by a group of
  // blocks, one the analysis could not trace). Otherwise two arrays of
  // 8-byte words read at an index (NCCL's doorbell records and a pointer
  // table, issue 34) would be one field of two ranks' copies.
  if (peerPointer(ownAccess) != Peer::No) return false;
  const AbstractValue &p = fn_.values->keptOperandValue(ownAccess, po), &v = fn_.values->keptOperandValue(peerAccess, so);
  if (!p.known || !p.hasBase() || !v.known || !v.hasBase() || (v.baseKind == p.baseKind && v.base == p.base))
    return false;
  const int64_t size = memory_.accessSize(ownAccess, po);
  if (v.constant != p.constant || memory_.accessSize(peerAccess, so) != size || size <= 0) return false;
  auto coefficients = [](const AbstractValue& x) {
    std::vector<int64_t> c;
    for (const auto& t : x.terms) c.push_back(t.coefficient);
    std::sort(c.begin(), c.end());
    return c;
  };
  if (v.terms.empty() || coefficients(v) != coefficients(p)) return false;
  // Terms of one name (the block index) carry one coefficient on both sides.
  for (const auto& t : v.terms)
    for (const auto& u : p.terms)
      if (t.name == u.name && t.coefficient != u.coefficient) return false;
  return pointersFromMirroredFields(peerAccess, ownAccess);
}

InstId ProtocolModel::peerMirrorSignal(InstId poll) const {
  auto [known, fresh] = peerMirrorSignal_.try_emplace(poll, -1);
  InstId& mirror = known->second;  // a reference outlives a rehash
  if (!fresh) return mirror;
  // The flag writes through a peer pointer, found once (isPeerMirror asks
  // goesThroughPeerPointer of its first argument).
  if (!peerFlagWrites_) {
    peerFlagWrites_.emplace();
    for (InstId s : writes_)
      if (isFlagWrite(fn_.instructions[s].effect) && goesThroughPeerPointer(s)) peerFlagWrites_->push_back(s);
  }
  // A mirror through a pointer traced to a peer table is preferred to one
  // through a pointer the walk lost (isDecidedPeerMirror).
  for (InstId s : *peerFlagWrites_)
    if (isPeerMirror(s, poll)) {
      if (mirror < 0) mirror = s;
      if (isDecidedPeerMirror(s)) {
        mirror = s;
        break;
      }
    }
  return mirror;
}

bool ProtocolModel::isDecidedPeerMirror(InstId peerAccess) const { return peerPointer(peerAccess) == Peer::Yes; }

AliasEvidence ProtocolModel::untracedMirrorEvidence() {
  AliasEvidence e;
  e.result = Alias::May;
  e.decided = false;
  e.how = "untraced-pointer";
  e.detail = "the same field of another copy of this structure is written through a pointer read from memory that "
             "the analysis could not trace to a peer table: another rank's copy, or this rank's own";
  return e;
}

ProtocolModel::PartnerPick ProtocolModel::pickPartnerWrite(InstId read, InstId poll) const {
  // A call given both the flag and this buffer (a put with signal): the
  // peers' copies write the data and raise the flag in it.
  for (InstId call : calls_)
    if (callPasses(call, poll) && callPasses(call, read)) return {call, true};
  // The first write of the set that the read may read, and the first whose
  // link is decided, depend on the set and the read alone: kept per (read,
  // set), since every wait of a barrier inlined many times asks them again.
  // They are the answer unless the wait's own mode excludes one of them.
  const PartnerChoice choice = partnerChoice(read, poll);
  const bool firstExcluded = choice.first >= 0 && exclusiveModes(choice.first, poll);
  const bool decidedExcluded = choice.firstDecided >= 0 && exclusiveModes(choice.firstDecided, poll);
  if (!firstExcluded && !decidedExcluded) return {choice.firstDecided >= 0 ? choice.firstDecided : choice.first};
  // This wait runs in one mode of the launch: walk the set with it.
  InstId best = -1;
  bool bestDecided = false;
  const PartnerBlock otherBlock = partnerBlockOfPoll(poll);
  for (InstId w : partnerWrites(poll)) {
    if (exclusiveModes(w, read) || exclusiveModes(w, poll) || !partnerMayRead(read, w, otherBlock)) continue;
    const bool decided = partnerWriteDecided(w, read, otherBlock, poll);
    if (best < 0 || (decided && !bestDecided)) {
      best = w;
      bestDecided = decided;
    }
    if (bestDecided) break;
  }
  return {best};
}

ProtocolModel::Link ProtocolModel::partnerWriteRead(InstId read, InstId poll) const {
  const PartnerPick pick = pickPartnerWrite(read, poll);
  if (pick.viaCall) {
    AliasEvidence e;
    e.result = Alias::May;
    e.decided = true;
    e.how = "call-argument";
    e.detail = "the kernel passes this buffer and the flag to one call (a put with signal of a communication "
               "library): the peers' copies of this kernel write the data and raise the flag there";
    return {pick.inst, e};
  }
  if (pick.inst < 0) return {};
  return {pick.inst, partnerWriteEvidence(pick.inst, read, partnerBlockOfPoll(poll), poll)};
}

// partnerWriteEvidence(w, read) is decided exactly when partnerWriteDecided
// is, and a strong pair exactly when writeReadEvidence says so of a pair
// that may alias (the same alias facts, peer-mirror and strong-pair tests;
// a decided No is partnerWriteEvidence's undecided "non-coherent-root").
ProtocolModel::PartnerFacts ProtocolModel::partnerWriteFacts(InstId read, InstId poll) const {
  const PartnerPick pick = pickPartnerWrite(read, poll);
  if (pick.viaCall) return {pick.inst, true, false};
  if (pick.inst < 0) return {};
  const bool opaque = opaqueCallMayFence(pick.inst);
  const PairEvidence::How how = opaque ? PairEvidence::How::OpaqueCall : writeReadEvidence(pick.inst, read).how;
  const bool mayAlias = !opaque && aliasFacts(pick.inst, read).result != Alias::No;
  const bool pairDecided = partnerPairDecided(pick.inst, read, partnerBlockOfPoll(poll));
  const bool unrelated = pairDecided && !opaque && !signalledToWait(pick.inst, poll);
  return {pick.inst, pairDecided && !unrelated, mayAlias && how == PairEvidence::How::StrongPair,
          mayAlias && how == PairEvidence::How::PolledCopy, unrelated};
}

bool ProtocolModel::mayReadWriteBeforeSignal(InstId read, InstId poll, InstId signal) const {
  if (signal < 0) return false;
  auto [before, added] = beforeSignals_.try_emplace(std::vector<InstId>{signal});
  if (added) before->second = computeBeforeSignals(before->first);
  const PartnerBlock otherBlock = partnerBlockOfPoll(poll);
  const std::vector<InstId>& written = *partnerWriteLists_[before->second.all];
  // A write that reaches the signal only through an interpreter's dispatch
  // is before it as the run-time plan says (model/DispatchLoops.h).
  return std::any_of(written.begin(), written.end(), [&](InstId w) {
    return !exclusiveModes(w, read) && !exclusiveModes(w, poll) && partnerMayRead(read, w, otherBlock) &&
           !reachesOnlyThroughDispatch(fn_, w, signal);
  });
}

AliasEvidence ProtocolModel::partnerWriteEvidence(InstId w, InstId read, const PartnerBlock& otherBlock,
                                                  InstId poll) const {
  AliasEvidence e = partnerPairEvidence(w, read, otherBlock);
  if (e.decided && !opaqueCallMayFence(w) && !signalledToWait(w, poll)) {
    // The write reaches the signal the wait observes, in its mode, yet is not
    // signalled to the wait: only through an interpreter's dispatch loop
    // (signalledToWait, model/DispatchLoops.h), as the run-time plan says.
    const InstId signal = observedSignal(poll).inst;
    if (signal >= 0 && !exclusiveModes(w, signal) && reachable(fn_, w, signal))
      return undecidedPairEvidence(
          "plan-order",
          "the partner makes this write in one operation of an interpreter and raises the flag in another: the "
          "write reaches the signal only through a later trip of a loop that picks its operation by an op code read "
          "from memory, so whether the partner writes it before signalling is the run-time plan's, which the PTX "
          "does not show");
    return unrelatedSignalEvidence();
  }
  return e;
}

bool ProtocolModel::partnerWriteDecided(InstId w, InstId read, const PartnerBlock& otherBlock, InstId poll) const {
  return partnerPairDecided(w, read, otherBlock) && (opaqueCallMayFence(w) || signalledToWait(w, poll));
}

// How a partner's write `w` reaches `read` (partnerWriteRead): an opaque
// call's argument, the same bytes, or a peer mirror.
AliasEvidence ProtocolModel::partnerPairEvidence(InstId w, InstId read, const PartnerBlock& otherBlock) const {
  AliasEvidence e;
  if (opaqueCallMayFence(w)) {
    e.decided = callPasses(w, read);
    e.how = e.decided ? "call-argument" : "opaque-call";
    e.detail = e.decided ? "the kernel passes this buffer to that call (a put of a communication library): the "
                           "peers' copies of this kernel write it there"
                         : "a call the analysis cannot see into may have written it";
    return e;
  }
  if (otherBlock.at.found()) return writeReadDetail(w, read, partnerPair(w, read, otherBlock), otherBlock.at);
  e = aliasEvidence(w, read);
  if (!e.decided && isPeerMirror(w, read)) {
    if (isDecidedPeerMirror(w)) {
      e.decided = true;
      e.how = "peer-mirror";
      e.detail = "the partner writes the same offsets of this rank's buffer through a peer pointer";
    } else {
      e = untracedMirrorEvidence();
    }
  }
  if (e.result == Alias::No) {  // a non-coherent read of the same root
    e.result = Alias::May;
    e.decided = false;
    e.how = "non-coherent-root";
  }
  if (e.decided && otherBlock.other && dataSlices(w, read) == MemoryAnalysis::BlockSlices::Kind::Undecided)
    return writeReadDetail(w, read, partnerPair(w, read, otherBlock));
  if (e.decided)
    if (const auto how = undecidedPairHow(w, read)) return undecidedHowEvidence(*how);
  return e;
}

bool ProtocolModel::partnerPairDecided(InstId w, InstId read, const PartnerBlock& otherBlock) const {
  if (opaqueCallMayFence(w)) return callPasses(w, read);
  if (otherBlock.at.found()) return partnerPair(w, read, otherBlock).decided;
  // partnerWriteEvidence(w, read).decided, without building its text; the
  // read may read the write (asked first).
  return partnerPair(w, read, otherBlock).decided && aliasFacts(w, read).result != Alias::No;
}

ProtocolModel::PartnerChoice ProtocolModel::partnerChoice(InstId read, InstId poll) const {
  const PartnerBlock otherBlock = partnerBlockOfPoll(poll);
  const uint64_t key = (uint64_t(uint32_t(read)) << 32) | partnerChoiceSet(poll) | (otherBlock.other ? 0u : 1u << 31);
  // A partner at a block distance is not kept: its answer is the poll's.
  const bool keep = !otherBlock.at.found();
  if (const auto* known = keep ? partnerChoice_.find(key) : nullptr) return *known;
  // The choice is kept per (read, set), so the pairs the scan passes over
  // are not kept in the pair table: no other question asks most of them
  // (NVSHMEM's put-with-signal dispatch: 280,000 of its 820,000 pairs, a
  // sixth of the function's peak; issue 35). The launch's mode is asked
  // first: a write of the other mode needs no alias answer.
  PartnerChoice choice;
  for (InstId w : partnerWrites(poll)) {
    if (exclusiveModes(w, read) || !partnerMayRead(read, w, otherBlock, /*keepNo=*/false)) continue;
    if (choice.first < 0) choice.first = w;
    if (partnerWriteDecided(w, read, otherBlock, poll)) {
      choice.firstDecided = w;
      break;
    }
  }
  if (keep) partnerChoice_.insert(key, choice);
  return choice;
}

// Each distinct list of partner writes is kept once, numbered: the waits of
// one barrier inlined many times share it.
uint32_t ProtocolModel::partnerWriteSet(InstId poll) const {
  if (const auto known = partnerWriteSetOf_.find(poll); known != partnerWriteSetOf_.end()) return known->second;
  // The writes and calls before some signal depend on the set of signals
  // alone (kept per set); the calls that only raise this wait's flag are not
  // data (isFlagOnlyCall).
  std::vector<InstId> signals = inKernelSignalsFor(poll);
  std::sort(signals.begin(), signals.end());
  signals.erase(std::unique(signals.begin(), signals.end()), signals.end());
  auto [before, added] = beforeSignals_.try_emplace(std::move(signals));
  if (added) before->second = computeBeforeSignals(before->first);
  const BeforeSignals& found = before->second;
  std::vector<InstId> kept;
  bool dropped = false;
  for (InstId c : found.calls)
    if (isFlagOnlyCall(c, poll)) {
      if (!dropped) kept = *partnerWriteLists_[found.all];
      dropped = true;
      kept.erase(std::find(kept.begin(), kept.end(), c));  // the call's own entry (a call may be in writes_ too)
    }
  // A partner of this block whose write a whole-CTA barrier separates from
  // every signal of the word (barrierBeforeSignal): ordered for the waiter by
  // the barrier.
  const std::vector<InstId>& signalsOfWord = before->first;
  if (!signalsOfWord.empty() && partnerInOwnBlock(poll)) {
    if (!dropped) kept = *partnerWriteLists_[found.all];
    const size_t size = kept.size();
    std::erase_if(kept, [&](InstId w) {
      return std::all_of(signalsOfWord.begin(), signalsOfWord.end(),
                         [&](InstId signal) { return !reachable(fn_, w, signal) || barrierBeforeSignal(w, signal); });
    });
    dropped |= kept.size() != size;
  }
  const uint32_t set = dropped ? numberPartnerWrites(std::move(kept)) : found.all;
  partnerWriteSetOf_.emplace(poll, set);
  return set;
}

uint32_t ProtocolModel::numberPartnerWrites(std::vector<InstId> writes) const {
  auto [set, added] = partnerWriteSets_.try_emplace(std::move(writes), static_cast<uint32_t>(partnerWriteSets_.size()));
  if (added) partnerWriteLists_.push_back(&set->first);
  return set->second;
}

// Asked by readerOf for every write a signal may publish, once per signal and
// poll: the same (write, read) pairs come back for every signal and every
// candidate write of a finding (NCCL's LL kernels: hundreds of each), so the
// answer, which does not depend on the signal, is computed once. Kept to a
// few bits per pair (NVSHMEM's put-with-signal dispatch asks millions of
// pairs): the evidence text is rebuilt by writeReadDetail for the pairs shown.
ProtocolModel::PairEvidence ProtocolModel::writeReadEvidence(InstId write, InstId read) const {
  // Four bits: 0 not asked, 1 the read cannot read the write, else
  // 2 + decided + 2 * how.
  static_assert(2 + 1 + 2 * static_cast<unsigned>(PairEvidence::How::PolledCopy) < 16);
  const InstId lo = std::min(write, read), hi = std::max(write, read);
  const unsigned shift = write <= read ? 23 : 27;
  if (const uint32_t known = (pairBits(lo, hi) >> shift) & 15) {
    PairEvidence pair;
    if (known == 1) return pair;
    pair.mayRead = true;
    pair.decided = ((known - 2) & 1) != 0;
    pair.how = static_cast<PairEvidence::How>((known - 2) >> 1);
    return pair;
  }
  PairEvidence pair;
  pair.mayRead = mayReadWrite(read, write);
  if (pair.mayRead) {
    if (opaqueCallMayFence(write)) {
      pair.how = PairEvidence::How::OpaqueCall;
    } else {
      // Decidedly apart (a non-coherent read of the same root, which
      // mayReadWrite keeps) is no evidence that the read reads the write.
      const AliasFacts e = aliasFacts(write, read);
      pair.decided = e.decided && e.result != Alias::No;
      if (!pair.decided && isPeerMirror(write, read)) {
        pair.decided = isDecidedPeerMirror(write);
        pair.how = PairEvidence::How::PeerMirror;
      }
      if (pair.decided)
        if (const auto how = undecidedPairHow(write, read)) {
          pair.decided = false;
          pair.how = *how;
        }
    }
  }
  const uint32_t packed = pair.mayRead ? 2 + (pair.decided ? 1u : 0u) + 2 * static_cast<uint32_t>(pair.how) : 1;
  setPairBits(lo, hi, 15u << shift, packed << shift);
  return pair;
}

// The polled-copy rule before the strong-pair rule: a polled copy store is
// often an atomic too, and its evidence says more.
AliasEvidence ProtocolModel::dataPairEvidence(InstId write, InstId read) const {
  AliasEvidence e = aliasEvidence(write, read);
  if (e.decided && e.result != Alias::No)
    if (const auto how = undecidedPairHow(write, read)) return undecidedHowEvidence(*how);
  return e;
}

std::optional<ProtocolModel::PairEvidence::How> ProtocolModel::undecidedPairHow(InstId write, InstId read) const {
  if (isCachedCopyPair(write, read)) return PairEvidence::How::PolledCopy;
  if (isStrongPair(write, read)) return PairEvidence::How::StrongPair;
  return std::nullopt;
}

AliasEvidence ProtocolModel::undecidedHowEvidence(PairEvidence::How how) {
  return how == PairEvidence::How::PolledCopy ? polledCopyEvidence() : strongPairEvidence();
}

AliasEvidence ProtocolModel::writeReadDetail(InstId write, InstId read, PairEvidence pair,
                                             MemoryAnalysis::BlockDistance at) const {
  AliasEvidence e;
  if (pair.how == PairEvidence::How::BlockDistance) {
    e.result = Alias::May;
    e.decided = pair.decided;
    e.how = "block-distance";
    e.detail = fmt::format("the writer is the block at the reader's %ctaid.{} {} {}, where the flag meets: {}",
                           char('x' + at.dimension), at.distance < 0 ? '-' : '+', std::abs(at.distance),
                           pair.decided ? "there the write's address is the read's"
                                        : "whether the write's address there meets the read's is not decided");
    return e;
  }
  if (pair.how == PairEvidence::How::OpaqueCall) {
    e.how = "opaque-call";
    return e;
  }
  if (pair.how == PairEvidence::How::StrongPair || pair.how == PairEvidence::How::PolledCopy)
    return undecidedHowEvidence(pair.how);
  if (pair.how == PairEvidence::How::BlockSlices) {
    const int ow = addressOf(fn_, write), orr = addressOf(fn_, read);
    e.how = "block-slices";
    e.detail = memory_.blockSlices(write, ow, read, orr).detail;
    if (e.detail.empty()) e.detail = blockCopiedPointers(fn_, write, ow, read, orr);
    return e;
  }
  e = aliasEvidence(write, read);
  if (e.result == Alias::No) {  // see writeReadEvidence
    e.result = Alias::May;
    e.decided = false;
    e.how = "non-coherent-root";
  }
  if (pair.how == PairEvidence::How::PeerMirror) {
    if (!pair.decided) return untracedMirrorEvidence();
    e.decided = true;
    e.how = "peer-mirror";
    e.detail = "the write goes through a peer pointer to the same offsets the reader reads in its own buffer";
  }
  return e;
}

// Shape S (issue 34): a flag protocol's partner is another block, whose
// expression of a per-block slice names its own slice (blockSlices).
MemoryAnalysis::BlockSlices::Kind ProtocolModel::dataSlices(InstId write, InstId read) const {
  if (const uint8_t* known = dataSlices_.find(uint32_t(write), uint32_t(read))) return static_cast<MemoryAnalysis::BlockSlices::Kind>(*known - 1);
  const int ow = addressOf(fn_, write), orr = addressOf(fn_, read);
  // Another rank's copy of this block (the same block index) reaches this
  // rank's slice through a multicast address or a peer pointer: then the
  // partner that meets the read is there, and the expressions' answer stands.
  auto otherRanks = [&](InstId i) { return fn_.instructions[i].opcode() == "multimem" || goesThroughPeerPointer(i); };
  auto kind = ow < 0 || orr < 0 || opaqueCallMayFence(write) || otherRanks(write) || otherRanks(read)
                  ? MemoryAnalysis::BlockSlices::Kind::None
                  : memory_.blockSlices(write, ow, read, orr, /*withDetail=*/false).kind;
  // One block's own read-modify-write (issue 34, shape P4: cuDNN's running
  // mean, `((tid >> 4) | blockIdx.x) == 0` on both sides): the guards of the
  // write and of the read pin one and the same block (UniformModes::
  // pinnedBlock), so no other block makes that write where the read reads;
  // nor does another rank's copy, which writes its own buffer unless the
  // write goes through a peer pointer or a multicast address (excluded above).
  if (kind != MemoryAnalysis::BlockSlices::Kind::Apart && ow >= 0 && orr >= 0 && !opaqueCallMayFence(write) &&
      !otherRanks(write) && !otherRanks(read)) {
    if (!modes_) modes_ = std::make_shared<UniformModes>(fn_);
    if (const auto w = modes_->pinnedBlock(write))
      if (const auto r = modes_->pinnedBlock(read); r && *r == *w) kind = MemoryAnalysis::BlockSlices::Kind::Apart;
  }
  // One pointer read, on both sides, from a slot the block reads as its own
  // (issue 34, MSCCL++'s FW: model/BlockCopiedPointers.h). Another rank's
  // copy reads its own slot too, peer pointer or not; a multicast address is
  // left to the expressions.
  auto multicast = [&](InstId i) { return fn_.instructions[i].opcode() == "multimem"; };
  if (kind == MemoryAnalysis::BlockSlices::Kind::None && ow >= 0 && orr >= 0 && !opaqueCallMayFence(write) &&
      !multicast(write) && !multicast(read) && !blockCopiedPointers(fn_, write, ow, read, orr).empty())
    kind = MemoryAnalysis::BlockSlices::Kind::Undecided;
  dataSlices_.assign(uint32_t(write), uint32_t(read), static_cast<uint8_t>(kind) + 1);
  return kind;
}

bool ProtocolModel::blockSlicesApart(InstId write, InstId read, bool otherBlock) const {
  return otherBlock && dataSlices(write, read) == MemoryAnalysis::BlockSlices::Kind::Apart;
}

bool ProtocolModel::orderedByFirstBarrier(InstId write, InstId read, bool otherBlock) const {
  // A .func's first barrier is not its callers' (they may have passed others
  // before the call); a write through a peer pointer or a multicast address
  // is another rank's, whose block takes no part in this one's barrier.
  if (otherBlock || !fn_.function || !fn_.function->isEntry) return false;
  if (fn_.instructions[write].opcode() == "multimem" || goesThroughPeerPointer(write)) return false;
  if (!firstBarrier_) firstBarrier_ = std::make_shared<const FirstBarrier>(fn_);
  return firstBarrier_->orders(write, read);
}

bool ProtocolModel::barrierBeforeSignal(InstId write, InstId signal) const {
  if (const bool* known = barrierBeforeSignal_.find(uint32_t(write), uint32_t(signal))) return *known;
  bool ordered = false;
  if (fn_.function && fn_.function->isEntry && fn_.instructions[write].opcode() != "multimem" &&
      !goesThroughPeerPointer(write) && reachable(fn_, write, signal) && signalPartnerInOwnBlock(signal))
    ordered = everyPathPasses(fn_, write, signal, [&](InstId i) {
      const Inst& in = fn_.instructions[i];
      return in.syntax && isWholeCtaBarrier(*in.syntax, in.effect);
    });
  barrierBeforeSignal_.assign(uint32_t(write), uint32_t(signal), ordered);
  return ordered;
}

bool ProtocolModel::partnerMayRead(InstId read, InstId write, const PartnerBlock& otherBlock, bool keepNo) const {
  if (orderedByFirstBarrier(write, read, otherBlock.other)) return false;
  if (otherBlock.at.found() && !opaqueCallMayFence(write)) return partnerPair(write, read, otherBlock).mayRead;
  return mayReadWrite(read, write, keepNo) && !blockSlicesApart(write, read, otherBlock.other);
}

ProtocolModel::PairEvidence ProtocolModel::partnerPair(InstId write, InstId read, const PartnerBlock& partner) const {
  if (partner.at.found() && !opaqueCallMayFence(write)) return pairAtDistance(write, read, partner.at);
  const bool otherBlock = partner.other;
  if (orderedByFirstBarrier(write, read, otherBlock)) return PairEvidence{};
  PairEvidence pair = writeReadEvidence(write, read);
  if (!otherBlock || !pair.mayRead || pair.how == PairEvidence::How::OpaqueCall) return pair;
  switch (dataSlices(write, read)) {
    case MemoryAnalysis::BlockSlices::Kind::Apart: return PairEvidence{};
    case MemoryAnalysis::BlockSlices::Kind::Undecided:
      if (pair.decided) {
        pair.decided = false;
        pair.how = PairEvidence::How::BlockSlices;
      }
      return pair;
    case MemoryAnalysis::BlockSlices::Kind::None: return pair;
  }
  return pair;
}

// The flag's words of two blocks never meet: the signal and the poll carry
// the block index the same way, at a stride that keeps the blocks apart.
bool ProtocolModel::flagPinsBlock(InstId signal, InstId poll) const {
  const int os = addressOf(fn_, signal), op = addressOf(fn_, poll);
  return os >= 0 && op >= 0 &&
         memory_.blockSlices(signal, os, poll, op, /*withDetail=*/false).kind == MemoryAnalysis::BlockSlices::Kind::Apart;
}

bool ProtocolModel::partnerInOwnBlock(InstId poll) const {
  return flagPinnedByAny(partnerInOwnBlock_, poll, &ProtocolModel::inKernelSignalsFor, /*opIsPoll=*/true);
}

bool ProtocolModel::signalPartnerInOwnBlock(InstId signal) const {
  return flagPinnedByAny(signalPartnerInOwnBlock_, signal, &ProtocolModel::pollsOf, /*opIsPoll=*/false);
}

// One loop for both sides: `others` lists the operations on the flag's other
// side (a poll's in-kernel signals, a signal's polls), asked only the first
// time `op` is.
bool ProtocolModel::flagPinnedByAny(std::unordered_map<InstId, bool>& cache, InstId op, OtherSide others,
                                    bool opIsPoll) const {
  auto [known, fresh] = cache.try_emplace(op, false);
  if (!fresh) return known->second;
  bool own = false;
  for (InstId other : (this->*others)(op))
    if (opIsPoll ? flagPinsBlock(other, op) : flagPinsBlock(op, other)) {
      own = true;
      break;
    }
  cache[op] = own;  // `others` may have grown the map
  return own;
}

// The scan's order (the polls of the signal in order, the reads each one
// guards in order) decides which reader is shown: the first pair whose read
// decidedly reads the write under a wait that decidedly observes the signal;
// else the first pair whose read may read it (a read found under one wait
// gives the same answer under the next: asked once); else the first wait
// that no data access follows. Whether there is a decided pair is known from
// hasDecidedReader and whether a wait has a read at all from
// guardedReadMayRead, both kept: a write is not walked over every read of
// every wait once per finding (issue 34).
ProtocolModel::Reader ProtocolModel::readerOf(InstId write, InstId signal) const {
  if (barrierBeforeSignal(write, signal)) return {};
  Reader best;
  // A wait, or a read, of the other mode of the launch (a kernel parameter
  // selects one) never sees this signal or this write (exclusiveModes).
  auto otherMode = [&](InstId i) { return exclusiveModes(signal, i) || exclusiveModes(write, i); };
  const std::vector<InstId>& polls = pollsOf(signal);
  const PartnerBlock otherBlock = partnerBlockOfSignal(signal);
  // The wait of another use of a sign-bit phase barrier: of the signal's
  // phase only where blocks reach different barrier sites at the same count
  // (model/PhaseFlipBarriers.h): never a decided reader.
  auto otherPhase = [&](InstId poll) { return waitOfOtherPhaseFlipUse(*this, signal, poll); };
  if (hasDecidedReader(write, signal)) {
    for (InstId poll : polls) {
      if (isEndOfKernelWait(poll) || otherMode(poll) || !aliasFacts(signal, poll).decided || otherPhase(poll))
        continue;
      for (InstId read : afterWait(poll).guardedReads) {
        const PairEvidence pair = partnerPair(write, read, otherBlock);
        if (pair.mayRead && pair.decided && !otherMode(read))
          return {poll, read, writeReadDetail(write, read, pair, otherBlock.at), false};
      }
    }
  }
  Reader phaseFallback;
  for (InstId poll : polls) {
    if (otherMode(poll)) continue;
    if (isEndOfKernelWait(poll)) {
      if (best.poll < 0) {
        best.poll = poll;
        best.endOfKernel = true;
        best.evidence.how = "end-of-kernel-wait";
        best.evidence.detail = "no data access follows the wait: the readers are the next launch, not in the PTX";
      }
      continue;
    }
    if (!guardedReadMayRead(poll, write)) continue;
    for (InstId read : afterWait(poll).guardedReads) {
      const PairEvidence pair = partnerPair(write, read, otherBlock);
      if (!pair.mayRead || otherMode(read)) continue;
      if (otherPhase(poll)) {
        // Kept, and shown only when no wait of the signal's own use has a reader.
        if (phaseFallback.poll < 0) {
          phaseFallback = {poll, read, writeReadDetail(write, read, pair, otherBlock.at), false};
          phaseFallback.evidence.decided = false;
          phaseFallback.evidence.how = "other-phase";
          phaseFallback.evidence.detail =
              "the wait is another use of the sign-bit phase barrier the signal arrives at: it observes the "
              "signal's phase only if blocks reach different barrier sites at the same count of uses, which the "
              "PTX does not decide";
        }
        break;
      }
      best = {poll, read, writeReadDetail(write, read, pair, otherBlock.at), false};
      // Not decided: the pair is, but the wait may not observe this signal
      // (a decided pair under a decided wait was returned above).
      if (pair.decided) {
        const AliasEvidence flag = aliasEvidence(signal, poll);
        best.evidence.decided = false;
        best.evidence.how = "flag-" + flag.how;
        best.evidence.detail = "the wait may not observe this signal: " + flag.detail;
      }
      return best;
    }
  }
  return phaseFallback.poll >= 0 ? phaseFallback : best;
}

// The reads readerOf can find decided for any write of `signal`: those after
// a wait (not an end-of-kernel one) whose flag decidedly is the signal's word.
uint32_t ProtocolModel::decidedReadSet(InstId signal) const {
  auto [known, fresh] = decidedReadSetOf_.try_emplace(signal, 0);
  if (!fresh) return known->second;
  std::vector<InstId> reads;
  for (InstId poll : pollsOf(signal)) {
    if (isEndOfKernelWait(poll) || !aliasFacts(signal, poll).decided) continue;
    if (waitOfOtherPhaseFlipUse(*this, signal, poll)) continue;  // undecided (readerOf)
    const std::vector<InstId>& guarded = afterWait(poll).guardedReads;
    reads.insert(reads.end(), guarded.begin(), guarded.end());
  }
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  auto [set, added] = decidedReadSetIds_.try_emplace(std::move(reads), static_cast<uint32_t>(decidedReadSets_.size()));
  if (added) decidedReadSets_.push_back(&set->first);
  known->second = set->second;
  return set->second;
}

// readerOf returns a decided reader exactly when one (read, wait) pair is
// decided on both links: the read's (writeReadEvidence) and the flag's. The
// order in which readerOf meets the pairs decides only which one it shows.
// What writeReadEvidence(write, read).decided needs, from each side's own
// facts: the same memory object or address (Memory's decided evidence),
// pointers read from memory on both sides or a choice of objects (the
// partner model's tables), or a write through a peer pointer (a peer
// mirror). hasDecidedReader asks it first: most pairs of a wait's reads and
// a signal's writes have none of these, and their evidence need not be built.
bool ProtocolModel::mayBeDecidedPair(InstId write, InstId read) const {
  const int ow = addressOf(fn_, write), orr = addressOf(fn_, read);
  if (ow < 0 || orr < 0) return false;  // "unknown-pointer": undecided
  if (goesThroughPeerPointer(write)) return true;
  const MemoryObject &w = memory_.objectOf(write, ow), &r = memory_.objectOf(read, orr);
  if (!w.alternatives.empty() || !r.alternatives.empty() || (isLoaded(w) && isLoaded(r))) return true;
  const MemoryLocation &lw = memory_.accessLocation(write, ow), &lr = memory_.accessLocation(read, orr);
  if (lw.address >= 0 && lw.address == lr.address) return true;
  if (!lw.object.alternatives.empty() || !lr.object.alternatives.empty()) return true;
  return lw.object.known() && lw.object == lr.object;
}

bool ProtocolModel::hasDecidedReader(InstId write, InstId signal) const {
  if (barrierBeforeSignal(write, signal)) return false;
  // A call's writes are never a decided pair (writeReadEvidence: "opaque-call").
  if (opaqueCallMayFence(write)) return false;
  const uint32_t set = decidedReadSet(signal);
  const PartnerBlock otherBlock = partnerBlockOfSignal(signal);
  const uint64_t key = (uint64_t(set | (otherBlock.other ? 0u : 1u << 31)) << 32) | uint32_t(write);
  const bool keep = !otherBlock.at.found();  // as in partnerChoice
  if (const auto* known = keep ? decidedReader_.find(key) : nullptr) return *known;
  const std::vector<InstId>& reads = *decidedReadSets_[set];
  const bool result = std::any_of(reads.begin(), reads.end(), [&](InstId read) {
    if (keep && !mayBeDecidedPair(write, read)) return false;
    const PairEvidence pair = partnerPair(write, read, otherBlock);
    return pair.mayRead && pair.decided;
  });
  if (keep) decidedReader_.insert(key, result);
  return result;
}

bool ProtocolModel::hasReader(InstId write, InstId signal) const {
  if (barrierBeforeSignal(write, signal)) return false;
  for (InstId poll : pollsOf(signal))
    if (!isEndOfKernelWait(poll) && guardedReadMayRead(poll, write)) return true;
  return false;
}

bool ProtocolModel::isSystemScopeSignal(InstId signal) const {
  // An explicit .sys scope. A volatile store also acts at .sys (the PTX ISA
  // treats st.volatile as st.relaxed.sys), but that is the qualifier's scope,
  // not the kernel's statement of a reader: volatile is how kernels wrote
  // their in-GPU flags before .relaxed existed (the pre-Volta idiom, whose
  // reads are disputed, not decided: checks::protocol::markVolatileStyleReads).
  // Nor is the update of a result (model/ResultUpdates.h: a .sys min or max of
  // thread data, a CAS retry's sum): no poller knows which value to test.
  const MemoryEffect& e = fn_.instructions[signal].effect;
  if (e.scope != Scope::Sys || e.semantics == Semantics::Volatile) return false;
  if (e.kind == EffectKind::ReadModifyWrite) return !isResultUpdate(fn_, signal);
  return e.semantics != Semantics::Weak;
}

bool ProtocolModel::rereadsPolledWord(InstId read, InstId poll) const {
  const int ro = addressOf(fn_, read);
  if (ro < 0) return false;
  const AbstractValue& r = fn_.values->keptOperandValue(read, ro);
  if (!r.known || !r.hasBase()) return false;
  // A loop counter names a different word on every trip: the poll's last
  // trip need not be the value the read uses.
  if (std::any_of(r.terms.begin(), r.terms.end(), [](const auto& t) { return t.name.starts_with("loop:"); }))
    return false;
  const int64_t readSize = memory_.accessSize(read, ro);
  auto readsAgain = [&](InstId earlier) {
    const int eo = addressOf(fn_, earlier);
    if (eo < 0 || !(fn_.values->keptOperandValue(earlier, eo) == r)) return false;
    const int64_t earlierSize = memory_.accessSize(earlier, eo);
    return readSize > 0 && earlierSize > 0 && readSize <= earlierSize;
  };
  // The polled word, then the pointers the poll reached it through.
  InstId earlier = poll;
  for (int depth = 0; earlier >= 0 && depth < 8; ++depth, earlier = pointerLoad(earlier))
    if (readsAgain(earlier)) return true;
  return false;
}

std::optional<MemoryLocation> ProtocolModel::indexedWord(InstId inst) const {
  const int operand = addressOf(fn_, inst);
  if (operand < 0) return std::nullopt;
  MemoryLocation l = memory_.location(inst, operand);
  using K = MemoryObject::Kind;
  const K k = l.object.kind;
  if (!l.bytes || !l.object.alternatives.empty() ||
      !(k == K::Param || k == K::SharedSymbol || k == K::DynamicShared || k == K::GlobalSymbol))
    return std::nullopt;
  if (isLoaded(root(inst))) return std::nullopt;
  return l;
}

// The root object of an instruction's address, as mayShareRoot compares it
// ("" when unknown).
const std::string& ProtocolModel::addressRootOf(InstId inst) const {
  static const std::string kUnknown;
  const int operand = fn_.instructions[inst].effect.address;
  if (!fn_.values || operand < 0) return kUnknown;
  return fn_.values->identityEngine().addressRoot(inst, operand);
}

ProtocolModel::WordIndex ProtocolModel::wordIndex(const std::vector<InstId>& list) const {
  WordIndex index;
  index.all = list;
  if (!std::is_sorted(list.begin(), list.end()))
    for (size_t k = 0; k < list.size(); ++k) index.position.emplace(list[k], k);
  for (InstId i : list) {
    WordIndex::Group& group = index.byRoot[addressRootOf(i)];
    std::optional<MemoryLocation> l = indexedWord(i);
    if (!l) {
      group.rest.push_back(i);
      continue;
    }
    group.exact[l->object].push_back({*l->bytes, i});
    int64_t& widest = group.widest[l->object];
    widest = std::max(widest, l->bytes->end - l->bytes->begin);
  }
  for (auto& [root, group] : index.byRoot)
    for (auto& [object, entries] : group.exact)
      std::sort(entries.begin(), entries.end(), [](const auto& x, const auto& y) {
        return x.first.begin != y.first.begin ? x.first.begin < y.first.begin : x.second < y.second;
      });
  return index;
}

std::vector<InstId> ProtocolModel::candidates(const WordIndex& index, InstId inst) const {
  std::optional<MemoryLocation> l = indexedWord(inst);
  const std::string root = addressRootOf(inst);
  std::vector<InstId> out;
  auto addGroup = [&](const WordIndex::Group& group) {
    out.insert(out.end(), group.rest.begin(), group.rest.end());
    for (const auto& [object, entries] : group.exact) {
      if (!l || !(object == l->object)) {
        for (const auto& entry : entries) out.push_back(entry.second);
        continue;
      }
      // Entries of this object that may overlap the query's bytes: those that
      // begin before its end and after its begin minus the widest entry.
      const int64_t from = l->bytes->begin - group.widest.at(object);
      auto it = std::lower_bound(entries.begin(), entries.end(), from,
                                 [](const auto& entry, int64_t value) { return entry.first.begin < value; });
      for (; it != entries.end() && it->first.begin < l->bytes->end; ++it)
        if (it->first.overlaps(*l->bytes)) out.push_back(it->second);
    }
  };
  if (root.empty()) {
    for (const auto& [r, group] : index.byRoot) addGroup(group);
  } else {
    if (auto it = index.byRoot.find(""); it != index.byRoot.end()) addGroup(it->second);
    if (auto it = index.byRoot.find(root); it != index.byRoot.end()) addGroup(it->second);
  }
  // The list's order (polls and signals are kept in instruction order).
  if (index.position.empty()) {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  } else {
    std::sort(out.begin(), out.end(),
              [&](InstId x, InstId y) { return index.position.at(x) < index.position.at(y); });
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

bool ProtocolModel::maySameWord(InstId a, InstId b) const {
  return memory_.mayShareRoot(a, b) && (alias(a, b) != Alias::No || flagDistance(a, b).found());
}

bool ProtocolModel::readsImmutableInput(InstId read) const {
  if (!isNonCoherent(fn_.instructions[read])) return false;
  MemoryObject object = root(read);
  return object.known() && !isLoaded(object) && !mayBeWrittenByKernel(read);
}

bool ProtocolModel::isStaleProneNonCoherentRead(InstId read) const {
  if (!isDataRead(fn_, read) || !isNonCoherent(fn_.instructions[read])) return false;
  MemoryObject object = root(read);
  return isLoaded(object) || (object.known() && mayBeWrittenByKernel(read));
}

// A non-coherent read is the compiler's promise that no other pointer of the
// kernel writes it: only a write through the same root counts.
bool ProtocolModel::mayBeWrittenByKernel(InstId read) const {
  int8_t& cached = writtenByKernel_[read];
  if (cached < 0) cached = computeMayBeWrittenByKernel(read) ? 1 : 0;
  return cached == 1;
}

bool ProtocolModel::computeMayBeWrittenByKernel(InstId read) const {
  const bool nc = isNonCoherent(fn_.instructions[read]);
  MemoryObject object = nc ? root(read) : MemoryObject();
  for (InstId w : writes_) {
    if (nc) {
      if (object.known() && root(w) == object) return true;
      continue;
    }
    if (alias(w, read) != Alias::No) return true;
  }
  return false;
}

bool ProtocolModel::isTranslatedPeerAddress(InstId inst) const {
  int operand = addressOf(fn_, inst);
  if (operand < 0 || !isLoaded(root(inst))) return false;
  const AbstractValue& value = fn_.values->keptOperandValue(inst, operand);
  return value.known && value.baseKind == AbstractValue::BaseKind::Loaded && !value.offsetRange();
}

// A poll that reads a whole packet in one vector access (ld.volatile.v2/v4:
// the Lamport and LL protocols' {data, flag} or sentinel-marked data) takes
// its payload from the word it polls: a store of a whole packet to that
// word is the partner's signal, a plain weak store included (packets are
// pushed with st.v4); narrower stores are the partner's other data. Asked
// of the memory analysis alone (not of the identity roots): the poll often
// reads its buffer's pointer back from a local array (`data_bufs[rank]`),
// which may hold any pointer the kernel stored there.
bool ProtocolModel::carriesPayload(InstId poll) const { return vectorLength(*fn_.instructions[poll].syntax) > 1; }

// Asked by hasPartnerInKernel and partnerWrites: found once per poll.
const std::vector<InstId>& ProtocolModel::inKernelSignalsFor(InstId poll) const {
  if (const std::vector<InstId>* known = signalsForPoll_.find(poll)) return *known;
  return signalsForPoll_.set(poll, findInKernelSignals(poll));
}

std::vector<InstId> ProtocolModel::findInKernelSignals(InstId poll) const {
  std::vector<InstId> found;
  // A signal that stores into the polled bytes a constant the spin never
  // leaves on releases no waiter here (model/ExitValueSignals.h).
  for (InstId s : candidates(signalIndex_, poll))
    if (maySameWord(s, poll) && !leavesNeverOn(*this, s, poll)) found.push_back(s);
  if (carriesPayload(poll)) {
    const int64_t packet = memory_.accessSize(poll, addressOf(fn_, poll));
    for (InstId w : writes_)
      if (fn_.instructions[w].effect.kind == EffectKind::Store && !isPoll(w) &&
          memory_.accessSize(w, addressOf(fn_, w)) >= packet && !std::binary_search(signals_.begin(), signals_.end(), w) &&
          alias(w, poll) != Alias::No)
        found.push_back(w);
  }
  // A flag raised through a translated peer address may be any flag behind
  // a pointer read from memory.
  if (isLoaded(root(poll)))
    for (InstId w : translatedFlagWrites_)
      if (!leavesNeverOn(*this, w, poll)) found.push_back(w);
  return found;
}

bool ProtocolModel::hasPartnerInKernel(InstId poll) const {
  auto [cached, inserted] = partnerInKernel_.try_emplace(poll, false);
  if (inserted) cached->second = !inKernelSignalsFor(poll).empty();
  return cached->second;
}

const std::vector<InstId>& ProtocolModel::partnerWrites(InstId poll) const {
  return *partnerWriteLists_[partnerWriteSet(poll)];
}

ProtocolModel::BeforeSignals ProtocolModel::computeBeforeSignals(const std::vector<InstId>& signals) const {
  // Every block from which some signal on the polled word is reachable, and
  // the part of the signal's own block before it.
  std::vector<char> before(fn_.blocks.size(), 0);
  std::vector<BlockId> work;
  for (InstId s : signals)
    for (BlockId p : fn_.blocks[fn_.blockOf[s]].predecessors) work.push_back(p);
  while (!work.empty()) {
    model::poll();
    BlockId b = work.back();
    work.pop_back();
    if (before[b]) continue;
    before[b] = 1;
    for (BlockId p : fn_.blocks[b].predecessors) work.push_back(p);
  }
  std::vector<InstId> lastSignal(fn_.blocks.size(), -1);  // per block, its last signal
  for (InstId s : signals) lastSignal[fn_.blockOf[s]] = std::max(lastSignal[fn_.blockOf[s]], s);
  auto precedesSomeSignal = [&](InstId w) { return before[fn_.blockOf[w]] || w < lastSignal[fn_.blockOf[w]]; };
  // The flag writes on this wait's word (the signals of every phase of a
  // dissemination barrier) announce, they are not data.
  std::vector<InstId> all;
  for (InstId w : writes_)
    if (!isPollAccess(w) && !std::binary_search(signals.begin(), signals.end(), w) && precedesSomeSignal(w))
      all.push_back(w);
  BeforeSignals found;
  for (InstId c : calls_)
    if (precedesSomeSignal(c)) found.calls.push_back(c);
  all.insert(all.end(), found.calls.begin(), found.calls.end());
  std::sort(all.begin(), all.end());
  std::sort(found.calls.begin(), found.calls.end());
  found.all = numberPartnerWrites(std::move(all));
  return found;
}

// The waits of one barrier inlined many times share one set of partner
// writes: the answer for a read is kept per set, not per poll.
bool ProtocolModel::mayReadPartnerWrites(InstId read, InstId poll) const {
  const std::vector<InstId>& written = partnerWrites(poll);
  const PartnerBlock otherBlock = partnerBlockOfPoll(poll);
  const uint64_t key = (uint64_t(uint32_t(read)) << 32) | partnerWriteSet(poll) | (otherBlock.other ? 0u : 1u << 31);
  const bool keep = !otherBlock.at.found();  // as in partnerChoice
  if (const auto* known = keep ? readsPartnerWrites_.find(key) : nullptr) return *known;
  const bool result = std::any_of(written.begin(), written.end(),
                                  [&](InstId w) { return partnerMayRead(read, w, otherBlock); });
  if (keep) readsPartnerWrites_.insert(key, result);
  return result;
}

bool ProtocolModel::isFlagValue(InstId at, int operand) const {
  const ptx::Operand& op = fn_.instructions[at].operands[operand];
  if (op.kind != ptx::Operand::Kind::Register) return false;
  InstId def = fn_.values->definition(op.reg, at);
  if (def < 0) return false;
  const MemoryEffect& e = fn_.instructions[def].effect;
  return e.kind == EffectKind::Load && e.semantics != Semantics::Weak && e.semantics != Semantics::None;
}

bool ProtocolModel::isFlagOnlyCall(InstId call, InstId poll) const {
  int pollOperand = addressOf(fn_, poll);
  if (pollOperand < 0) return false;
  const AbstractValue& flag = fn_.values->keptOperandValue(poll, pollOperand);
  if (!flag.known || !flag.hasBase()) return false;
  // The arguments: the st.param instructions right before the call.
  bool passesFlag = false;
  const InstId first = fn_.blocks[fn_.blockOf[call]].first;
  for (InstId i = call - 1; i >= first; --i) {
    const Inst& arg = fn_.instructions[i];
    if (arg.opcode() != "st" || !arg.hasModifier("param") || arg.operands.size() < 2) break;
    const AbstractValue& value = fn_.values->keptOperandValue(i, 1);
    if (!value.known || !value.hasBase()) continue;  // not a pointer we can name
    if (isFlagValue(i, 1)) continue;                 // the value to store (a counter read by a volatile load)
    if (value.baseKind != flag.baseKind || value.base != flag.base) return false;
    passesFlag = true;
  }
  return passesFlag;
}

bool ProtocolModel::mayReadWrite(InstId read, InstId write, bool keepNo) const {
  if (opaqueCallMayFence(write)) return !readsImmutableInput(read);  // an opaque call may write anything
  if (isNonCoherent(fn_.instructions[read])) {
    MemoryObject object = root(read);
    return !object.known() || isLoaded(object) || root(write) == object;
  }
  return alias(write, read, keepNo) != Alias::No;
}

bool ProtocolModel::readsAfterObservation(InstId read, InstId poll) const {
  const SpinLoop* spin = spinContaining(poll);
  return spin && afterObservation(fn_, *spin, poll, fn_.blockOf[read]);
}

bool ProtocolModel::reachedAfterObservation(const SpinLoop& spin, InstId read, InstId poll) const {
  if (!hasExitWithoutPoll(spin, poll)) return true;
  auto [cached, inserted] = observedReach_.try_emplace(poll);
  std::vector<char>& reach = cached->second;
  if (inserted) {
    reach.assign(fn_.blocks.size(), 0);
    std::vector<BlockId> work{fn_.blockOf[poll]};
    while (!work.empty()) {
      model::poll();
      const BlockId b = work.back();
      work.pop_back();
      for (BlockId s : fn_.blocks[b].successors) {
        if (reach[s] || leavesWithoutPoll(fn_, spin, poll, b, s)) continue;
        reach[s] = 1;
        work.push_back(s);
      }
    }
  }
  return reach[fn_.blockOf[read]] != 0;
}

bool ProtocolModel::readsOnFirstTurn(const SpinLoop& spin, InstId read, InstId poll) const {
  auto [cached, inserted] = firstTurnBlocks_.try_emplace(poll);
  if (inserted) cached->second = firstTurnOnlyBlocks(fn_, spin, poll, inKernelSignalsFor(poll));
  return !cached->second.empty() && cached->second[fn_.blockOf[read]] != 0;
}

bool ProtocolModel::isGuardedRead(InstId read, InstId poll) const {
  // Cheap refusals first; the rest is kept per (poll, read).
  if (!dataRead_[read] || isPollAccess(read)) return false;
  auto found = guardedRead_.find(poll);
  if (found == guardedRead_.end()) {
    const size_t bytes = (size_t(dataReadCount_) + 3) / 4;
    if (guardedReadBytes_ + bytes > kGuardedMemoBytes) return computeGuardedRead(read, poll);
    guardedReadBytes_ += bytes;
    found = guardedRead_.emplace(poll, std::vector<uint8_t>(bytes, 0)).first;
  }
  const uint32_t rank = dataReadRank_[read];
  const int shift = int(rank & 3) * 2;
  uint8_t answer = (found->second[rank >> 2] >> shift) & 3;
  if (answer == 0) {
    answer = computeGuardedRead(read, poll) ? 2 : 1;
    // A map's elements stay in place when it grows (computeGuardedRead may
    // ask for other polls).
    found->second[rank >> 2] |= uint8_t(answer << shift);
  }
  return answer == 2;
}

const std::vector<InstId>& ProtocolModel::guardedReadsAfter(InstId poll) const {
  // The reads the after-wait scan found, when some question has made it
  // already; else every data read (a superset: isGuardedRead holds only at
  // data reads). The scan is not made for this: a walk that stops at an
  // acquire right after the loop would pay for the whole rest of the
  // function, per poll (tests/limits/nested-spin-loops.test).
  if (std::binary_search(polledWords_.begin(), polledWords_.end(), poll)) {
    size_t k = std::lower_bound(polledWords_.begin(), polledWords_.end(), poll) - polledWords_.begin();
    AfterWait& after = afterWait_[k];
    if (after.computed) {
      if (!after.sortedGuardedReads) {
        after.sortedGuardedReads = after.guardedReads;
        std::sort(after.sortedGuardedReads->begin(), after.sortedGuardedReads->end());
        after.sortedGuardedReads->erase(std::unique(after.sortedGuardedReads->begin(), after.sortedGuardedReads->end()),
                                        after.sortedGuardedReads->end());
      }
      return *after.sortedGuardedReads;
    }
  }
  if (!dataReads_) {
    dataReads_.emplace();
    for (InstId i = 0; i < static_cast<InstId>(dataRead_.size()); ++i)
      if (dataRead_[i]) dataReads_->push_back(i);
  }
  return *dataReads_;
}

bool ProtocolModel::computeGuardedRead(InstId read, InstId poll) const {
  if (!dataRead_[read] || isPollAccess(read) || memory_.sameWord(read, poll)) return false;
  if (rereadsPolledWord(read, poll)) return false;
  if (const SpinLoop* spin = spinContaining(poll)) {
    if (spin->contains(fn_, read) && !readsAfterObservation(read, poll)) return false;
    // Past an exit that other polls of the spin decide alone, and on no other
    // way from this poll (issue 34, NVSHMEM shape X).
    if (!reachedAfterObservation(*spin, read, poll)) return false;
    // On the first turn of a turn word only: the wait left on the word's
    // initial value, before any partner wrote (model/FirstTurnWaits.h).
    if (readsOnFirstTurn(*spin, read, poll)) return false;
  }
  // A read of the other mode of the launch (a kernel parameter selects one)
  // never follows this wait in a launch (issue 34 F4; the comm14 shape A),
  // nor one of the other mode of the block: the block that waits is the one
  // that reads (issue 35, shapes C and U-credit).
  if (exclusiveModesInBlock(read, poll)) return false;
  // The partner is this kernel on another block or rank: what it wrote before
  // signalling. A word that only ever holds values of polled words (a cached
  // consumer index) is no such data (issue 34, NCCL's U-credit).
  if (hasPartnerInKernel(poll)) return !isCopyOfPolledWord(read) && mayReadPartnerWrites(read, poll);
  // The partner is outside the kernel: anything not provably immutable.
  MemoryObject object = root(read);
  if (!object.known() || isLoaded(object)) return true;  // peer memory
  if (mayBeWrittenByKernel(read)) return true;
  return !readsImmutableInput(read);
}

bool ProtocolModel::isEndOfKernelWait(InstId poll) const {
  if (!std::binary_search(polledWords_.begin(), polledWords_.end(), poll)) return false;
  return !afterWait(poll).dataFollows;
}

bool ProtocolModel::mayBeReadAfterWait(InstId write, InstId signal) const {
  if (barrierBeforeSignal(write, signal)) return false;
  for (InstId poll : pollsOf(signal)) {
    if (isEndOfKernelWait(poll)) return true;
    if (guardedReadMayRead(poll, write)) return true;
  }
  return false;
}

// The polls that may read a signal's word and leave on what it stores, found
// once per signal.
const std::vector<InstId>& ProtocolModel::pollsOf(InstId signal) const {
  if (const std::vector<InstId>* known = pollsOfSignal_.find(signal)) return *known;
  // A store of a constant on which a wait never leaves (a count reset to
  // 0 where the waiter leaves on a count shown non-zero) is not what that
  // wait observes: its exit reads another write.
  const std::optional<int64_t> value = storedConstant(signal);
  std::vector<InstId> polls;
  for (InstId poll : candidates(pollIndex_, signal)) {
    if (!maySameWord(poll, signal)) continue;
    const SpinLoop* spin = value ? spinContaining(poll) : nullptr;
    if (spin && !spin->contains(fn_, signal) && exitOnValue(fn_, *spin, poll, *value) == ExitOn::No) continue;
    // A vector store, at the element the poll reads (model/ExitValueSignals.h).
    if (!value && leavesNeverOn(*this, signal, poll)) continue;
    polls.push_back(poll);
  }
  return pollsOfSignal_.set(signal, std::move(polls));
}

// Some read the wait of `poll` guards may read what `write` wrote: asked
// once per pair (the signals of one flag share their polls and writes).
bool ProtocolModel::guardedReadMayRead(InstId poll, InstId write) const {
  const uint64_t key = (uint64_t(uint32_t(poll)) << 32) | uint32_t(write);
  if (const auto* known = guardedReadMayRead_.find(key)) return *known;
  const std::vector<InstId>& reads = afterWait(poll).guardedReads;
  const PartnerBlock otherBlock = partnerBlockOfPoll(poll);
  const bool result =
      std::any_of(reads.begin(), reads.end(), [&](InstId read) { return partnerMayRead(read, write, otherBlock); });
  guardedReadMayRead_.insert(key, result);
  return result;
}

bool ProtocolModel::isPublishedWrite(InstId write, InstId signal) const {
  if (write == signal || !writesGlobalMemory(fn_, write)) return false;
  if (memory_.sameWord(write, signal)) return false;
  // A ticket's counter is protocol state, not data.
  if (std::binary_search(tickets_.begin(), tickets_.end(), write)) return false;
  // Another signal on the same flag object (a flag written to every peer in turn).
  if (std::binary_search(signals_.begin(), signals_.end(), write) ||
      std::binary_search(outboundSignals_.begin(), outboundSignals_.end(), write)) {
    MemoryObject a = root(write), b = root(signal);
    if (!a.known() || a == b) return false;
  }
  if (std::binary_search(outboundSignals_.begin(), outboundSignals_.end(), signal))
    return !isProtocolStateOfOutboundFlag(write, signal);
  // A copy of a polled word (a cached consumer index stored back after a
  // spin on the index) publishes nothing (issue 34, NCCL's U-credit).
  if (isCopyOfPolledWord(write)) return false;
  return mayBeReadAfterWait(write, signal);
}

// An outbound flag is judged on clear evidence only: data written, then the
// flag raised. Atomics and flag stores on the flag's own object before it (the
// last block's pattern: count the arrivals in the word next to the epoch,
// reset the count, flip the epoch) are the protocol's own state, not the data
// it publishes; plain stores there (a result next to its ready flag) are data.
bool ProtocolModel::isProtocolStateOfOutboundFlag(InstId write, InstId signal) const {
  if (!isFlagWrite(fn_.instructions[write].effect)) return false;
  // A FIFO's reservations and other triggers are its state, not the data it publishes.
  if (isFifoTrigger(signal)) return true;
  MemoryObject a = root(write), b = root(signal);
  return a.known() && a == b;
}

bool ProtocolModel::isFifoTrigger(InstId i) const {
  const Inst& inst = fn_.instructions[i];
  const MemoryEffect& e = inst.effect;
  const bool strongStore = e.kind == EffectKind::Store && e.semantics != Semantics::Weak && e.semantics != Semantics::None;
  const bool sysAtomic = e.kind == EffectKind::ReadModifyWrite && e.scope == Scope::Sys;
  if ((!strongStore && !sysAtomic) || isFloatingPointData(i) || e.address < 0) return false;
  const MemoryObject& object = root(i);
  if (object.kind != MemoryObject::Kind::Param && object.kind != MemoryObject::Kind::Loaded) return false;
  const ptx::Operand& address = inst.operands[e.address];
  if (address.base.kind != ptx::Operand::Kind::Register) return false;
  std::vector<InstId> reservations;
  for (InstId w : reservations_)
    if (w != i && !memory_.sameWord(w, i)) reservations.push_back(w);
  return !reservations.empty() && valueDependsOn(fn_, address.base.reg, i, reservations);
}

// --- Tickets ---------------------------------------------------------------

namespace {

// atom/red add, inc, dec or sub: an arrival that counts.
bool isCountingRmw(const Inst& inst) {
  static constexpr std::string_view kCounting[] = {"add", "inc", "dec", "sub"};
  return std::any_of(std::begin(kCounting), std::end(kCounting), [&](std::string_view m) { return inst.hasModifier(m); });
}

bool isSharedAccess(const FunctionModel& fn, InstId i) {
  const MemoryEffect& e = fn.instructions[i].effect;
  Space space = e.space;
  if (fn.values && e.address >= 0) {
    Space narrowed = fn.values->addressSpace(i, e.address);
    if (narrowed != Space::None) space = narrowed;
  }
  return space == Space::SharedCta;
}

}  // namespace

void ProtocolModel::findTickets() {
  std::vector<InstId> candidates;
  for (InstId i : writes_) {
    const Inst& inst = fn_.instructions[i];
    if (inst.effect.kind != EffectKind::ReadModifyWrite || !isCountingRmw(inst) || isFloatingPointData(i) ||
        isIdentityUpdate(i) || isPoll(i))
      continue;
    // The returned value: a destination register before the address (red has none).
    if (inst.effect.address <= 0 || inst.operands[0].kind != ptx::Operand::Kind::Register) continue;
    // A ticket counts the other blocks' arrivals: a counter in shared memory
    // is one block's (a histogram, a work queue of the block).
    if (isSharedAccess(fn_, i)) continue;
    candidates.push_back(i);
  }
  if (candidates.empty()) return;
  // Shared-memory stores, where a decision may be handed to the block.
  std::vector<InstId> sharedStores;
  for (InstId i = 0; i < static_cast<InstId>(fn_.instructions.size()); ++i)
    if (fn_.instructions[i].effect.kind == EffectKind::Store && isSharedAccess(fn_, i)) sharedStores.push_back(i);
  // The stores each shared load may read, asked once per load (the walks of
  // many branches meet the same loads). Of the stores to a word one thread
  // hands to the block, those its store of this round overwrites are not
  // read (model/BroadcastStores.h: a work item and a ticket handed through
  // one word are two values).
  std::unordered_map<InstId, std::vector<InstId>> storesRead;
  auto storesReadBy = [&](InstId load) -> const std::vector<InstId>& {
    auto [it, fresh] = storesRead.try_emplace(load);
    if (fresh) {
      std::vector<InstId> mayRead;
      for (InstId st : sharedStores) {
        if (fn_.instructions[st].operands.back().kind != ptx::Operand::Kind::Register) continue;
        if (memory_.alias(st, addressOf(fn_, st), load, addressOf(fn_, load)) != Alias::No) mayRead.push_back(st);
      }
      it->second = storesReadByBroadcast(fn_, load, mayRead);
    }
    return it->second;
  };
  // What the backward walk below does at each definition, found once per
  // instruction (the walks of many branches meet the same definitions): a
  // candidate ends it, a value returned by an inlined call goes on at its
  // store, a shared load at the stores it may read, an instruction with no
  // memory effect at the registers it reads (a comparison too, deciding
  // there whether the walk has passed an equality with an arrival count);
  // anything else ends it. (Whether a load is of shared memory is asked when
  // a walk meets it.)
  enum class Step : uint8_t { Stop, Candidate, Bound, Load, SharedLoad, Operation, Comparison };
  const size_t registers = fn_.registerNames.size();
  const InstId count = static_cast<InstId>(fn_.instructions.size());
  std::vector<Step> stepAt(count, Step::Stop);
  std::vector<std::vector<ValueReg>> readsOf(count);  // registerUse().read of the Operation and Comparison steps
  for (InstId d = 0; d < count; ++d) {
    model::poll();
    const Inst& def = fn_.instructions[d];
    if (std::binary_search(candidates.begin(), candidates.end(), d)) {
      stepAt[d] = Step::Candidate;
    } else if (def.boundStore >= 0) {
      stepAt[d] = Step::Bound;
    } else if (def.effect.kind == EffectKind::Load) {
      stepAt[d] = Step::Load;
    } else if (def.effect.kind == EffectKind::None) {
      stepAt[d] = isComparison(def) ? Step::Comparison : Step::Operation;
      readsOf[d] = registerUse(def).read;
    }
  }
  // Per setp: an equality test with a count of arrivals fixed for the launch,
  // not a reservation's sentinel or turn (model/ArrivalCountTest.h; 0 = not
  // asked yet, 1 no, 2 yes).
  if (!modes_) modes_ = std::make_shared<UniformModes>(fn_);
  auto isCandidate = [&](InstId d) { return std::binary_search(candidates.begin(), candidates.end(), d); };
  std::vector<uint8_t> countTest(count, 0);
  auto testsArrivalCount = [&](InstId d) {
    uint8_t& known = countTest[d];
    if (known == 0) known = comparesWithArrivalCount(fn_, *modes_, d, isCandidate) ? 2 : 1;
    return known == 2;
  };
  // The registers from which that walk can reach a candidate: every step
  // taken in reverse, from the candidates' results, ignoring where each
  // definition is (a superset). A branch whose predicate is not among them
  // has no ticket, and its walk (up to 512 steps) is not taken (issue 33).
  // Bit 1: reached with an equality test with an arrival count as the first
  // comparison on the way (the walk records a ticket only then); bit 0: with
  // no comparison yet. A value past another first comparison is not marked.
  std::vector<uint8_t> reachesCandidate(registers, 0);
  {
    std::vector<std::vector<InstId>> followers(registers);  // reg -> definitions the walk enters from it
    std::vector<InstId> sharedLoads;
    std::vector<char> storedToShared(registers, 0);  // the value register of a shared store
    auto inRange = [&](ValueReg r) { return r >= 0 && static_cast<size_t>(r) < registers; };
    for (InstId st : sharedStores) {
      const ptx::Operand& value = fn_.instructions[st].operands.back();
      if (value.kind == ptx::Operand::Kind::Register && inRange(value.reg)) storedToShared[value.reg] = 1;
    }
    for (InstId d = 0; d < count; ++d) {
      switch (stepAt[d]) {
        case Step::Bound: {
          const ptx::Operand& value = fn_.instructions[fn_.instructions[d].boundStore].operands.back();
          if (value.kind == ptx::Operand::Kind::Register && inRange(value.reg)) followers[value.reg].push_back(d);
          break;
        }
        case Step::Load: sharedLoads.push_back(d); break;  // (every load: a superset)
        case Step::Operation:
        case Step::Comparison:
          for (ValueReg r : readsOf[d])
            if (inRange(r)) followers[r].push_back(d);
          break;
        default: break;
      }
    }
    std::vector<std::pair<ValueReg, uint8_t>> work;
    auto mark = [&](InstId d, uint8_t bit) {
      // The first comparison a candidate's value meets decides: an equality
      // with an arrival count, or an outcome that counts nothing from here on.
      if (bit == 1 && stepAt[d] == Step::Comparison) {
        if (!testsArrivalCount(d)) return;
        bit = 2;
      }
      for (ValueReg r : writtenRegisters(fn_.instructions[d]))
        if (inRange(r) && !(reachesCandidate[r] & bit)) {
          reachesCandidate[r] |= bit;
          work.push_back({r, bit});
        }
    };
    for (InstId c : candidates) mark(c, 1);
    uint8_t sharedLoadsMarked = 0;
    while (!work.empty()) {
      model::poll();
      const auto [r, bit] = work.back();
      work.pop_back();
      for (InstId d : followers[r]) mark(d, bit);
      if (storedToShared[r] && !(sharedLoadsMarked & bit)) {
        sharedLoadsMarked |= bit;
        for (InstId d : sharedLoads) mark(d, bit);
      }
    }
  }
  // The walk's visited states (register, at, eligible), at most 512: an open
  // addressing table of 1024 slots, emptied for each branch by a new stamp.
  constexpr size_t kSlots = 1024, kMaxStates = 512;
  std::vector<uint64_t> slotKey(kSlots);
  std::vector<uint32_t> slotStamp(kSlots, 0);
  uint32_t stamp = 0;
  size_t visited = 0;
  std::vector<std::tuple<ValueReg, InstId, bool>> work;  // the walk's stack, kept for every branch
  auto firstVisit = [&](ValueReg reg, InstId at, bool eligible) {
    const uint64_t key = (uint64_t(uint32_t(reg)) << 33) | (uint64_t(uint32_t(at)) << 1) | (eligible ? 1 : 0);
    for (size_t h = (key * 0x9E3779B97F4A7C15ull) >> 54;; h = (h + 1) & (kSlots - 1)) {
      if (slotStamp[h] != stamp) {
        slotStamp[h] = stamp;
        slotKey[h] = key;
        ++visited;
        return true;
      }
      if (slotKey[h] == key) return false;
    }
  };
  for (const BasicBlock& block : fn_.blocks) {
    if (block.last <= block.first) continue;
    const InstId branch = block.last - 1;
    const Inst& br = fn_.instructions[branch];
    if (br.opcode() != "bra" || !br.guard || br.guard->reg < 0) continue;
    if (static_cast<size_t>(br.guard->reg) < registers && !(reachesCandidate[br.guard->reg] & 2)) continue;
    // Backward from the predicate: (register, at, the last comparison passed
    // on the way is an equality test with an arrival count).
    ++stamp;
    visited = 0;
    work.assign(1, {br.guard->reg, branch, false});
    while (!work.empty() && visited < kMaxStates) {
      model::poll();
      auto [reg, at, eligible] = work.back();
      work.pop_back();
      if (!firstVisit(reg, at, eligible)) continue;
      for (InstId d : fn_.values->reachingDefinitions(reg, at)) {
        switch (stepAt[d]) {
          case Step::Candidate:
            if (eligible) {
              auto& branches = ticketBranches_[d];
              if (std::find(branches.begin(), branches.end(), branch) == branches.end()) branches.push_back(branch);
            }
            break;
          case Step::Bound: {
            // A value returned by an inlined call: the store that wrote it.
            const InstId store = fn_.instructions[d].boundStore;
            const ptx::Operand& value = fn_.instructions[store].operands.back();
            if (value.kind == ptx::Operand::Kind::Register) work.push_back({value.reg, store, eligible});
            break;
          }
          case Step::Load:
            stepAt[d] = isSharedAccess(fn_, d) ? Step::SharedLoad : Step::Stop;
            if (stepAt[d] == Step::Stop) break;
            [[fallthrough]];
          case Step::SharedLoad:
            for (InstId st : storesReadBy(d)) work.push_back({fn_.instructions[st].operands.back().reg, st, eligible});
            break;
          case Step::Operation:
            for (ValueReg r : readsOf[d]) work.push_back({r, d, eligible});
            break;
          case Step::Comparison: {
            // Upstream of a comparison flows the value it compared: a ticket's
            // only if this comparison is the equality with an arrival count
            // (the one nearest the candidate decides, ArrivalCountTest.h).
            const bool next = testsArrivalCount(d);
            for (ValueReg r : readsOf[d]) work.push_back({r, d, next});
            break;
          }
          case Step::Stop: break;
        }
      }
    }
  }
  for (auto& [ticket, branches] : ticketBranches_) {
    std::sort(branches.begin(), branches.end());
    tickets_.push_back(ticket);
  }
  std::sort(tickets_.begin(), tickets_.end());
}

const std::vector<InstId>& ProtocolModel::ticketBranches(InstId ticket) const {
  static const std::vector<InstId> none;
  auto it = ticketBranches_.find(ticket);
  return it == ticketBranches_.end() ? none : it->second;
}

const std::vector<InstId>& ProtocolModel::ticketPartnerWrites(InstId ticket) const {
  auto [cached, fresh] = ticketPartnerWrites_.try_emplace(ticket);
  if (!fresh) return cached->second;
  for (InstId w : writes_) {
    if (w == ticket || memory_.sameWord(w, ticket) || isPollAccess(w))
      continue;
    if (std::binary_search(signals_.begin(), signals_.end(), w) ||
        std::binary_search(tickets_.begin(), tickets_.end(), w))
      continue;
    // The blocks that count on this ticket run its mode of the launch: a
    // write of the other mode (exclusiveModes) is never made before a copy
    // of it (issue 34, NCCL's AlltoAll_LL: one backend's state write taken
    // for the data of another backend's reservation).
    if (exclusiveModes(w, ticket)) continue;
    const bool before = (fn_.blockOf[w] == fn_.blockOf[ticket] && w < ticket) || reachable(fn_, w, ticket);
    if (before) cached->second.push_back(w);
  }
  return cached->second;
}

std::vector<InstId> ProtocolModel::ticketReads(InstId ticket, const std::function<bool(InstId)>& stop,
                                               size_t limit) const {
  std::vector<InstId> found;
  const std::vector<InstId>& branches = ticketBranches(ticket);
  const std::vector<InstId>& written = ticketPartnerWrites(ticket);
  if (branches.empty() || written.empty()) return found;
  const BlockId home = fn_.blockOf[ticket];
  // A read the decision guards lies on one side of a branch it takes: one
  // that both edges reach (before the ticket's next round), neither through
  // a wait of its own (the others' spin on the last arriver's flag), is made
  // whether or not the count was reached (shape A, docs/real-code.md: a cell
  // allocator's overflow test). A read under its own predicate is left to
  // the reachability alone (a decision if-converted into it).
  auto decides = [&](InstId b, InstId r) {
    if (!reachable(fn_, b, r)) return false;
    if (fn_.instructions[r].guard) return true;
    auto [sides, fresh] = ticketBranchSides_.try_emplace({ticket, b});
    if (fresh) sides->second = edgeReach(fn_, b, home, [&](InstId i) { return isPoll(i); });
    return sides->second.decides(fn_.blockOf[r]);
  };
  auto guarded = [&](InstId r) {
    if (!dataRead_[r] || isPollAccess(r) || memory_.sameWord(r, ticket)) return false;
    if (!std::any_of(branches.begin(), branches.end(), [&](InstId b) { return decides(b, r); })) return false;
    return std::any_of(written.begin(), written.end(), [&](InstId w) { return mayReadWrite(r, w); });
  };
  std::vector<char> seen(fn_.blocks.size(), 0);
  std::vector<std::pair<BlockId, InstId>> queue{{home, ticket + 1}};
  for (size_t q = 0; q < queue.size(); ++q) {
    model::poll();
    auto [b, from] = queue[q];
    bool ended = false;
    for (InstId i = from; i < fn_.blocks[b].last; ++i) {
      if (i == ticket || isPoll(i) || stop(i)) {
        ended = true;
        break;
      }
      if (guarded(i)) {
        found.push_back(i);
        if (found.size() >= limit) return found;
      }
    }
    if (ended) continue;
    for (BlockId s : fn_.blocks[b].successors) {
      if (seen[s] || fn_.dominates(s, home)) continue;
      seen[s] = 1;
      queue.push_back({s, fn_.blocks[s].first});
    }
  }
  return found;
}

bool ProtocolModel::isTicketPublishedWrite(InstId write, InstId ticket) const {
  const std::vector<InstId>& written = ticketPartnerWrites(ticket);
  if (!std::binary_search(written.begin(), written.end(), write)) return false;
  auto [reads, fresh] = ticketReadsAll_.try_emplace(ticket);
  if (fresh) reads->second = ticketReads(ticket, [](InstId) { return false; }, 256);
  return std::any_of(reads->second.begin(), reads->second.end(), [&](InstId r) { return mayReadWrite(r, write); });
}

// The choice is made on the alias facts and the evidence, with its text,
// built for the chosen write only: a ticket's reads are asked against every
// partner write (NCCL's symmetric kernels kept 35,000 evidence texts, 3 MB
// of a function's 39, for the few shown; issue 35).
ProtocolModel::Link ProtocolModel::ticketWriteRead(InstId read, InstId ticket) const {
  auto evidence = [&](InstId w) {
    AliasEvidence e = opaqueCallMayFence(w) ? AliasEvidence{} : dataPairEvidence(w, read);
    if (opaqueCallMayFence(w)) e.how = "opaque-call";
    if (e.result == Alias::No) {  // a non-coherent read of the same root (as in partnerWriteRead)
      e.result = Alias::May;
      e.decided = false;
      e.how = "non-coherent-root";
    }
    return e;
  };
  // evidence(w).decided, from the facts.
  auto decided = [&](InstId w) {
    if (opaqueCallMayFence(w)) return false;
    const AliasFacts facts = aliasFacts(w, read);
    return facts.decided && facts.result != Alias::No && !undecidedPairHow(w, read);
  };
  InstId best = -1;
  for (InstId w : ticketPartnerWrites(ticket)) {
    if (!mayReadWrite(read, w)) continue;
    if (best < 0) best = w;
    if (decided(w)) {
      best = w;
      break;
    }
  }
  if (best < 0) return {};
  return {best, evidence(best)};
}

// --- Strong pairs (issue 34) ------------------------------------------------

bool ProtocolModel::isStrongPair(InstId write, InstId read) const {
  const Inst& w = fn_.instructions[write];
  const Inst& r = fn_.instructions[read];
  const MemoryEffect& we = w.effect;
  const MemoryEffect& re = r.effect;
  auto strongSemantics = [](Semantics s) { return s != Semantics::None && s != Semantics::Weak; };
  // The write is itself a synchronization operation: an atomic (a counter,
  // a lock word) or a release store (a flag). A relaxed or volatile store is
  // how pre-Volta code writes data (`st.volatile` of a result, read with
  // `ld.volatile` after the poll): a stale value there is a wrong result, and
  // the missing acquire is the hazard (docs/real-code.md, class V).
  const bool strongWrite = (w.opcode() == "atom" || w.opcode() == "red")
                               ? we.kind == EffectKind::ReadModifyWrite
                               : w.opcode() == "st" && we.kind == EffectKind::Store && hasReleaseSemantics(we);
  const bool strongRead = r.opcode() == "atom" ? re.kind == EffectKind::ReadModifyWrite
                                               : r.opcode() == "ld" && re.kind == EffectKind::Load &&
                                                     strongSemantics(re.semantics) && !r.hasModifier("nc");
  if (!strongWrite || !strongRead) return false;
  if (we.proxy == model::Proxy::Async || re.proxy == model::Proxy::Async) return false;
  if (we.address < 0 || re.address < 0) return false;
  // Shared memory is the CTA's: no partner of a flag protocol shares it.
  auto global = [&](InstId i, const MemoryEffect& e) {
    Space s = fn_.values ? fn_.values->addressSpace(i, e.address) : e.space;
    return s == Space::Global || s == Space::Generic;
  };
  if (!global(write, we) || !global(read, re)) return false;
  // Scalars of one size: a vector access is several element accesses, and a
  // narrower read of a wider word overlaps it only in part.
  for (const Inst* i : {&w, &r})
    for (std::string_view v : {"v2", "v4", "v8"})
      if (i->hasModifier(v)) return false;
  const int64_t size = memory_.accessSize(write, we.address);
  if (size <= 0 || size != memory_.accessSize(read, re.address)) return false;
  const Scope need =
      goesThroughPeerPointer(write) || readsThroughPeerPointer(read) ? Scope::Sys : Scope::Gpu;
  return scopeOf(write) >= need && scopeOf(read) >= need;
}

AliasEvidence ProtocolModel::undecidedPairEvidence(const char* how, const char* detail) {
  AliasEvidence e;
  e.result = Alias::May;
  e.decided = false;
  e.how = how;
  e.detail = detail;
  return e;
}

AliasEvidence ProtocolModel::strongPairEvidence() {
  return undecidedPairEvidence(
      "strong-pair",
      "the write is an atomic or a release store and the read a strong access of the same word (one size, "
      "scopes that include the partner): no data race, the read returns one of the word's values; whether "
      "an older one breaks the protocol (a counter read as a bound) is not decided");
}

// --- Ordering and scope ---------------------------------------------------

bool ProtocolModel::opaqueCallMayFence(InstId inst) const {
  return fn_.instructions[inst].effect.kind == EffectKind::Call;
}

bool ProtocolModel::isAcquire(InstId inst) const { return isAcquireFence(fn_, inst) || opaqueCallMayFence(inst); }

const std::vector<InstId>& ProtocolModel::acquirePoints() const {
  if (!acquirePoints_) {
    acquirePoints_.emplace();
    for (InstId i = 0; i < static_cast<InstId>(fn_.instructions.size()); ++i)
      if (isAcquire(i)) acquirePoints_->push_back(i);
  }
  return *acquirePoints_;
}

const std::vector<InstId>& ProtocolModel::releasePoints() const {
  if (!releasePoints_) {
    releasePoints_.emplace();
    for (InstId i = 0; i < static_cast<InstId>(fn_.instructions.size()); ++i) {
      const MemoryEffect& e = fn_.instructions[i].effect;
      if (isReleaseFence(fn_, i) || opaqueCallMayFence(i) ||
          (hasReleaseSemantics(e) && (e.kind == EffectKind::ReadModifyWrite || e.kind == EffectKind::Store)))
        releasePoints_->push_back(i);
    }
  }
  return *releasePoints_;
}

bool ProtocolModel::releasesFor(InstId inst, InstId signal) const {
  if (isReleaseFence(fn_, inst) || opaqueCallMayFence(inst)) return true;
  if (inst == signal) return false;
  const MemoryEffect& e = fn_.instructions[inst].effect;
  const MemoryEffect& s = fn_.instructions[signal].effect;
  return s.kind == EffectKind::ReadModifyWrite && hasReleaseSemantics(e) &&
         (e.kind == EffectKind::ReadModifyWrite || e.kind == EffectKind::Store) && memory_.sameWord(inst, signal);
}

Scope ProtocolModel::scopeOf(InstId inst) const {
  if (opaqueCallMayFence(inst)) return Scope::Sys;
  Scope s = fn_.instructions[inst].effect.scope;
  return s == Scope::None ? Scope::Gpu : s;
}

Scope ProtocolModel::requiredScope(InstId access) const { return requiredScopeEvidence(access).scope; }

ProtocolModel::ScopeEvidence ProtocolModel::requiredScopeEvidence(InstId access) const {
  auto [known, fresh] = requiredScope_.try_emplace(access);
  ScopeEvidence& evidence = known->second;  // a reference outlives a rehash
  if (fresh) evidence = computeRequiredScopeEvidence(access);
  return evidence;
}

ProtocolModel::ScopeEvidence ProtocolModel::computeRequiredScopeEvidence(InstId access) const {
  ScopeEvidence e;
  int operand = fn_.instructions[access].effect.address;
  if (operand < 0) return e;
  e.scope = Scope::Sys;
  // .sys, but on evidence that decides nothing: the link is undecided.
  auto undecided = [&](const char* how, const char* detail) {
    e.decided = false;
    e.how = how;
    e.detail = detail;
    return e;
  };
  if (const Peer peer = peerPointer(access); peer != Peer::No) {
    // A pointer read from memory that the analysis could not trace to a
    // table indexed by a rank or peer is no evidence of another GPU (issue 34 F3).
    if (peer == Peer::Unknown)
      return undecided("untraced-pointer",
                       "the flag's pointer is read from memory the analysis could not trace: it may be another GPU's");
    // A table read at an index computed from the block's position alone
    // (issue 34, NCCL's GIN descriptors): the same entries on every rank, one
    // per group of this launch's blocks or a peer per group; the table's
    // contents decide, and they are not in the PTX.
    if (peer == Peer::BlockGroup)
      return undecided("block-group-pointer",
                       "the flag's pointer is read from a table at an index computed from the block's position alone (an "
                       "entry per group of blocks, or a peer per group): nothing shows that another GPU touches it");
    // One field of a record, at an index that is not the block's position, of
    // a table the kernel writes into (issue 34, NVSHMEM's queue-pair
    // descriptors): a per-destination descriptor that holds this GPU's
    // queues, or a peer's pointer; the PTX does not show which.
    if (peer == Peer::Record)
      return undecided("record-field-pointer",
                       "the flag's pointer is a field of a record in a table that the kernel writes into (a "
                       "per-destination descriptor, not an array of peer pointers): nothing shows that another GPU "
                       "touches it");
    e.how = "peer-pointer";
    e.detail = "the flag is reached through a peer pointer: another GPU touches it";
    return e;
  }
  // A flag for the host or another kernel: .sys covers either.
  if (std::binary_search(outboundSignals_.begin(), outboundSignals_.end(), access)) {
    e.how = "outbound-flag";
    e.detail = "no wait of this kernel reads the flag: the host or another kernel does";
    return e;
  }
  // A .sys signal of this kernel on the flag's own word: its partner is off
  // the GPU. On another word of the same object (one allocation can hold a
  // rank's own counters beside the flags its peers raise) it decides nothing;
  // where the words cannot be told apart the link stays undecided.
  bool sysSignalMayShareWord = false;
  MemoryObject object = root(access);
  if (object.known())
    for (InstId s : systemSignalling_) {
      if (!(root(s) == object)) continue;
      const AliasFacts alias = aliasFacts(s, access);
      if (alias.sameBytes()) {
        const AliasEvidence said = aliasEvidence(s, access);
        e.how = "sys-signal-on-word";
        e.detail = "the kernel signals on this flag's word at .sys scope (" + said.how + ": " + said.detail + ")";
        return e;
      }
      if (!alias.decided || alias.same()) sysSignalMayShareWord = true;
    }
  // A kernel that raises flags on peer GPUs and waits on a flag of its own:
  // the flag it waits on is raised by the peers, unless it is the kernel's own
  // grid barrier (decided only when a signal on the polled word itself goes
  // through a peer pointer).
  if (raisesPeerFlags_ && isPoll(access)) {
    bool untraced = false, blockGroup = false, record = false;
    if (const InstId mirror = peerMirrorSignal(access); mirror >= 0) {
      if (isDecidedPeerMirror(mirror)) {
        e.how = "peer-signal";
        e.detail = "the kernel raises the same field of another rank's copy through a peer pointer: another GPU "
                   "writes this flag";
        return e;
      }
      // Through a pointer the walk lost: another rank's copy or this
      // rank's own, the same question as an untraced signal's.
      untraced = true;
    }
    for (InstId s : inKernelSignalsFor(access)) {
      const Peer peer = peerPointer(s);
      if (peer == Peer::No || !aliasFacts(s, access).same()) continue;
      if (peer == Peer::Unknown) {
        untraced = true;
        continue;
      }
      if (peer == Peer::BlockGroup) {
        blockGroup = true;
        continue;
      }
      if (peer == Peer::Record) {
        record = true;
        continue;
      }
      e.how = "peer-signal";
      e.detail = "the flag is raised through a peer pointer: another GPU writes it";
      return e;
    }
    if (inOwnBlock(access)) return ownBlockScope(e);
    if (untraced)
      return undecided("untraced-signal-pointer",
                       "the flag is raised through a pointer read from memory that the analysis could not trace: it may be "
                       "another GPU's");
    if (blockGroup)
      return undecided("block-group-signal-pointer",
                       "the flag is raised through a pointer read from a table at an index computed from the block's "
                       "position alone: it may be another GPU's, or this GPU's entry for a group of blocks");
    if (record)
      return undecided("record-field-signal-pointer",
                       "the flag is raised through a pointer that is a field of a record in a table that the kernel "
                       "writes into (a per-destination descriptor): it may be another GPU's, or this GPU's");
    return undecided("peer-flags-elsewhere",
                     "the kernel raises flags on other GPUs, but no write the analysis relates to this flag comes from one");
  }
  if (inOwnBlock(access)) return ownBlockScope(e);
  if (sysSignalMayShareWord)
    return undecided("sys-signal-on-object",
                     "the kernel signals at .sys scope on this flag's object, at a word the analysis cannot tell from this one");
  e.scope = Scope::Gpu;
  // Another block, presumed for a global flag, is not decided when every side
  // picks the word by data (session 27: cuDSS's per-row counters).
  if (dataIndexedProtocol(fn_, access, isPoll(access) ? inKernelSignalsFor(access) : pollsOf(access),
                          [&](InstId i) -> const std::string& { return addressRootOf(i); })) {
    e.decided = false;
    e.how = "data-indexed-flag";
    e.detail = "the flag's word is chosen by a value read from memory on every side (a row of a table), with no block "
               "index: whether the partner runs in another block or in this one depends on the data";
  }
  return e;
}

// The flag pins the partner to the executing block (partnerInOwnBlock for a
// poll, signalPartnerInOwnBlock for a signal: the partner decision acquire-
// and release-missing use): the block's own threads are the partner, and
// .cta covers them (issue 34, nvCOMP's unsnap_kernel: a per-block record's
// status word, raised and polled at .cta).
bool ProtocolModel::inOwnBlock(InstId access) const {
  return isPoll(access) ? partnerInOwnBlock(access) : signalPartnerInOwnBlock(access);
}

ProtocolModel::ScopeEvidence ProtocolModel::ownBlockScope(ScopeEvidence e) {
  e.scope = Scope::Cta;
  e.decided = true;
  e.how = "own-block";
  e.detail = "the flag's address carries the block index the same way on both sides, at a stride that keeps blocks "
             "apart: the partner is a thread of this block";
  return e;
}

// --- Named facts ----------------------------------------------------------

bool ProtocolModel::isIdentityUpdate(InstId inst) const {
  const auto& i = fn_.instructions[inst];
  if (i.effect.kind != EffectKind::ReadModifyWrite || i.operands.empty()) return false;
  const int last = static_cast<int>(i.operands.size()) - 1;
  // A compare-and-swap whose new value is its compare value (atomicCAS(f, 1,
  // 1)): it writes what it found or nothing, a read through an atomic.
  if (i.hasModifier("cas") && last >= 2 && last - 1 > i.effect.address) {
    const std::optional<int64_t> compare = fn_.values->constantOf(inst, last - 1);
    const std::optional<int64_t> swap = fn_.values->constantOf(inst, last);
    if (compare && swap) return *compare == *swap;
    const ptx::Operand &a = i.operands[last - 1], &b = i.operands[last];
    return a.kind == ptx::Operand::Kind::Register && b.kind == ptx::Operand::Kind::Register && a.reg == b.reg;
  }
  const std::optional<int64_t> v = fn_.values->constantOf(inst, last);
  if (!v) return false;
  if (i.hasModifier("add") || i.hasModifier("or") || i.hasModifier("xor")) return *v == 0;
  if (i.hasModifier("and")) return *v == -1 || (i.hasModifier("b32") && *v == 0xFFFFFFFF);
  return false;
}

bool ProtocolModel::isConsumingDecrement(InstId inst) const {
  const auto& i = fn_.instructions[inst];
  if (i.effect.kind != EffectKind::ReadModifyWrite || !i.hasModifier("add") || i.operands.empty()) return false;
  if (!fn_.values->isNegation(inst, static_cast<int>(i.operands.size()) - 1)) return false;
  for (InstId poll : polledWords_)
    if (memory_.sameWord(poll, inst) && reachable(fn_, poll, inst)) return true;
  return false;
}

bool ProtocolModel::isResetAfterWait(InstId store) const {
  for (InstId poll : polledWords_)
    if (memory_.sameWord(poll, store) && fn_.dominatesInst(poll, store) && !spinContaining(poll)->contains(fn_, store))
      return true;
  return false;
}

std::optional<int64_t> ProtocolModel::storedConstant(InstId write) const {
  const Inst& i = fn_.instructions[write];
  const MemoryEffect& e = i.effect;
  if (!e.writes || e.address < 0) return std::nullopt;
  if (e.kind == EffectKind::ReadModifyWrite) {
    if (!i.hasModifier("exch")) return std::nullopt;
  } else if (e.kind != EffectKind::Store) {
    return std::nullopt;
  }
  const int value = static_cast<int>(i.operands.size()) - 1;
  if (value <= e.address) return std::nullopt;
  return fn_.values->constantOf(write, value);
}

const std::vector<InstId>& ProtocolModel::pollsOfWord(InstId write) const {
  if (const std::vector<InstId>* known = pollsOfWord_.find(write)) return *known;
  std::vector<InstId> polls;
  for (InstId p : candidates(pollIndex_, write))
    if (p != write && maySameWord(write, p)) polls.push_back(p);
  return pollsOfWord_.set(write, std::move(polls));
}

bool ProtocolModel::isPolledWordReset(InstId write) const {
  const std::optional<int64_t> value = storedConstant(write);
  if (!value || isPoll(write)) return false;
  const std::vector<InstId>& polls = pollsOfWord(write);
  if (polls.empty()) return false;
  for (InstId p : polls) {
    const SpinLoop* spin = spinContaining(p);
    if (!spin || spin->contains(fn_, write) || exitOnValue(fn_, *spin, p, *value) != ExitOn::No) return false;
  }
  return true;
}

bool ProtocolModel::isFloatingPointData(InstId inst) const {
  const Inst& in = fn_.instructions[inst];
  if (hasFloatType(in)) return true;
  // A max/min atomic on a float's bits: CUTLASS's FP8 amax epilogue folds a
  // float maximum into one word with `mov.b32 %r, %f; atom.max.s32` (and
  // atom.min.u32 for negative values). A reduction nobody polls, like a float
  // atomicAdd (real code: gemm_fp8_groupwise, float_amax_integer_atomics.cu).
  if ((in.hasModifier("max") || in.hasModifier("min")) && !in.operands.empty() && fn_.values) {
    const ptx::Operand& value = in.operands.back();
    if (value.kind != ptx::Operand::Kind::Register) return false;
    std::vector<InstId> defs = fn_.values->reachingDefinitions(value.reg, inst);
    if (defs.empty()) return false;
    for (InstId d : defs) {
      const Inst& def = fn_.instructions[d];
      if (def.opcode() != "mov" || def.operands.size() < 2 || def.operands[1].kind != ptx::Operand::Kind::Register)
        return false;
      const ValueReg source = def.operands[1].reg;
      if (source < 0 || static_cast<size_t>(source) >= fn_.registerTypes.size() ||
          !fn_.registerTypes[source].starts_with(".f"))
        return false;
    }
    return true;
  }
  return false;
}

namespace {

// Approximate heap bytes of the memo tables (FENCELINE_MEMSTATS): a hash
// node is its value, a next pointer and the allocator's 16-byte header; a
// vector its capacity.
template <typename T>
size_t heapBytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}
template <typename K, typename V>
size_t heapBytes(const std::unordered_map<K, V>& m) {
  return m.size() * (sizeof(std::pair<const K, V>) + 24) + m.bucket_count() * sizeof(void*);
}
template <typename K, typename T>
size_t heapBytes(const std::unordered_map<K, std::vector<T>>& m) {
  size_t bytes = m.size() * (sizeof(std::pair<const K, std::vector<T>>) + 24) + m.bucket_count() * sizeof(void*);
  for (const auto& [key, v] : m) bytes += heapBytes(v);
  return bytes;
}

}  // namespace

std::string ProtocolModel::memoStats() const {
  std::vector<std::tuple<size_t, size_t, std::string_view>> tables = {
      {pairs_.bytes(), pairs_.size(), "pairs"},
      {aliasEvidence_.bytes(), aliasEvidence_.size(), "aliasEvidence"},
      {aliasEvidenceStore_.size() * sizeof(AliasEvidence), aliasEvidenceStore_.size(), "aliasEvidenceStore"},
      {decidedReader_.bytes(), decidedReader_.size(), "decidedReader"},
      {guardedReadMayRead_.bytes(), guardedReadMayRead_.size(), "guardedReadMayRead"},
      {partnerChoice_.bytes(), partnerChoice_.size(), "partnerChoice"},
      {readsPartnerWrites_.bytes(), readsPartnerWrites_.size(), "readsPartnerWrites"},
      {guardedReadBytes_ + heapBytes(guardedRead_), guardedRead_.size(), "guardedRead"},
      {heapBytes(ticketPartnerWrites_), ticketPartnerWrites_.size(), "ticketPartnerWrites"},
      {heapBytes(ticketReadsAll_), ticketReadsAll_.size(), "ticketReadsAll"},
      {pollsOfSignal_.bytes(), pollsOfSignal_.size(), "pollsOfSignal"},
      {pollsOfWord_.bytes(), pollsOfWord_.size(), "pollsOfWord"},
      {signalsForPoll_.bytes(), signalsForPoll_.size(), "signalsForPoll"},
      {dataSlices_.bytes(), dataSlices_.size(), "dataSlices"},
      {barrierBeforeSignal_.bytes(), barrierBeforeSignal_.size(), "barrierBeforeSignal"},
      {heapBytes(observedReach_), observedReach_.size(), "observedReach"},
      {heapBytes(rootOf_) + roots_.size() * sizeof(MemoryObject), roots_.size(), "root"},
      {heapBytes(requiredScope_), requiredScope_.size(), "requiredScope"},
      {heapBytes(accessBase_), accessBase_.size(), "accessBase"},
  };
  size_t afterWaitBytes = heapBytes(afterWait_);
  for (const AfterWait& w : afterWait_)
    afterWaitBytes += heapBytes(w.guardedReads) + (w.sortedGuardedReads ? heapBytes(*w.sortedGuardedReads) : 0);
  tables.emplace_back(afterWaitBytes, afterWait_.size(), "afterWait");
  std::sort(tables.begin(), tables.end(), [](const auto& x, const auto& y) { return std::get<0>(x) > std::get<0>(y); });
  std::string out;
  for (const auto& [bytes, entries, name] : tables)
    if (bytes >= (size_t(256) << 10)) out += fmt::format(" {}={}K/{}", name, bytes >> 10, entries);
  return out;
}

}  // namespace fenceline::model
