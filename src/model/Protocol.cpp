// The protocol model (see Protocol.h): spin loops, signals, the partner
// model, ordering and scope, built once per function. The first section is
// the adapter that reads memory identity from RegisterFlow's keys and roots;
// it is the only place that looks inside those strings.
#include "model/Protocol.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "model/Paths.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

// --- Adapter over RegisterFlow (until model/Memory.h lands) -----------------

// A word as RegisterFlow names it: "[base+offset]" split into its symbolic
// base and constant byte offset.
struct Word {
  std::string base;
  int64_t offset = 0;
};

std::optional<Word> wordOf(const RegisterFlow& flow, InstId inst) {
  int operand = flow.function().instructions[inst].effect.address;
  std::string key = flow.addressKey(inst, operand);
  if (key.size() < 2 || key.front() != '[' || key.back() != ']') return std::nullopt;
  std::string_view text(key);
  text = text.substr(1, text.size() - 2);
  Word word;
  size_t plus = text.rfind('+');
  if (plus != std::string_view::npos) {
    std::string_view tail = text.substr(plus + 1);
    int64_t value = 0;
    auto [end, error] = std::from_chars(tail.data(), tail.data() + tail.size(), value);
    if (error == std::errc() && end == tail.data() + tail.size()) {
      word.base = std::string(text.substr(0, plus));
      word.offset = value;
      return word;
    }
  }
  word.base = std::string(text);
  return word;
}

// Bytes an access touches, from its type and vector modifiers (4 when unknown).
int64_t widthOf(const Inst& inst) {
  static constexpr std::pair<std::string_view, int64_t> kTypes[] = {
      {"b8", 1},  {"u8", 1},  {"s8", 1},  {"b16", 2}, {"u16", 2}, {"s16", 2}, {"f16", 2}, {"bf16", 2},
      {"b32", 4}, {"u32", 4}, {"s32", 4}, {"f32", 4}, {"b64", 8}, {"u64", 8}, {"s64", 8}, {"f64", 8},
      {"b128", 16}};
  int64_t width = 4;
  for (auto [name, bytes] : kTypes)
    if (inst.hasModifier(name)) width = bytes;
  if (inst.hasModifier("v2")) width *= 2;
  if (inst.hasModifier("v4")) width *= 4;
  if (inst.hasModifier("v8")) width *= 8;
  return width;
}

std::string rootOf(const RegisterFlow& flow, InstId inst) {
  return flow.addressRoot(inst, flow.function().instructions[inst].effect.address);
}

bool isLoadedRoot(const std::string& root) { return root.starts_with("loaded("); }

// The root of the table a loaded pointer was read from ("loaded(param:p1)" -> "param:p1").
std::string tableOf(const std::string& loadedRoot) {
  return loadedRoot.substr(7, loadedRoot.size() - 8);
}

bool isThreadUniform(const std::string& key) {
  return key.find("%tid") == std::string::npos && key.find("%laneid") == std::string::npos &&
         key.find('@') == std::string::npos && key.find("load(") == std::string::npos;
}

// --- Small classifications ------------------------------------------------

bool isFlagWrite(const MemoryEffect& e) {
  return e.kind == EffectKind::ReadModifyWrite ||
         (e.kind == EffectKind::Store && e.semantics != Semantics::Weak && e.semantics != Semantics::None);
}

bool isNonCoherent(const Inst& inst) { return inst.hasModifier("nc"); }

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

bool isDataRead(const FunctionModel& fn, InstId inst) {
  const MemoryEffect& e = fn.instructions[inst].effect;
  if (e.kind != EffectKind::Load) return false;
  if (e.space != Space::Global && e.space != Space::Generic) return false;
  if (fn.values && e.address >= 0) {
    Space narrowed = fn.values->addressSpace(inst, e.address);
    if (narrowed != Space::None && narrowed != Space::Global && narrowed != Space::Generic) return false;
  }
  return true;
}

const ProtocolModel& protocolOf(const FunctionModel& fn) { return *fn.protocol; }

// --- Construction ---------------------------------------------------------

ProtocolModel::ProtocolModel(const FunctionModel& function) : fn_(function), flow_(function) {
  const auto count = static_cast<InstId>(fn_.instructions.size());
  spins_ = findSpinLoops(fn_, flow_);
  spinOfPoll_.assign(fn_.instructions.size(), -1);
  for (size_t s = 0; s < spins_.size(); ++s)
    for (InstId poll : spins_[s].polls)
      if (spinOfPoll_[poll] < 0) spinOfPoll_[poll] = static_cast<int32_t>(s);
  for (const auto& spin : spins_) polledWords_.insert(polledWords_.end(), spin.polls.begin(), spin.polls.end());
  std::sort(polledWords_.begin(), polledWords_.end());
  polledWords_.erase(std::unique(polledWords_.begin(), polledWords_.end()), polledWords_.end());
  // FENCELINE_DEBUG_SPINS=1 lists the spin loops found (for triaging real code).
  const bool debug = std::getenv("FENCELINE_DEBUG_SPINS") != nullptr;
  if (debug)
    for (const auto& spin : spins_)
      for (InstId poll : spin.polls)
        fmt::print(stderr, "spin loop {} in {}: poll at PTX line {} key {} root {}\n", spin.loop,
                   fn_.function ? fn_.function->name : "?", fn_.instructions[poll].syntax->pos.line,
                   flow_.addressKey(poll, fn_.instructions[poll].effect.address), rootOf(flow_, poll));

  for (InstId i = 0; i < count; ++i) {
    const MemoryEffect& e = fn_.instructions[i].effect;
    if (!writesGlobalMemory(fn_, i)) continue;
    writes_.push_back(i);
    std::string root = e.address >= 0 ? rootOf(flow_, i) : std::string();
    if (e.scope == Scope::Sys && e.semantics != Semantics::Volatile && isFlagWrite(e)) systemSignalling_.push_back(i);
    if (isFlagWrite(e) && isLoadedRoot(root)) raisesPeerFlags_ = true;
  }
  for (InstId i : writes_) {
    if (!isSignalCandidate(i)) continue;
    bool polled = std::any_of(polledWords_.begin(), polledWords_.end(), [&](InstId p) { return maySameWord(i, p); });
    if (polled) signals_.push_back(i);
    else if (isOutboundSignal(i)) outboundSignals_.push_back(i);
  }
  // The reads each wait guards, for isPublishedWrite.
  readsAfterPoll_.resize(polledWords_.size());
  for (size_t k = 0; k < polledWords_.size(); ++k) {
    InstId poll = polledWords_[k];
    std::vector<char> seen(fn_.blocks.size(), 0);
    std::vector<BlockId> work;
    const SpinLoop* spin = spinContaining(poll);
    bool dataAfter = false;
    auto visit = [&](BlockId b, InstId from) {
      for (InstId i = from; i < fn_.blocks[b].last; ++i) {
        if (isGuardedRead(i, poll)) readsAfterPoll_[k].push_back(i);
        bool access = isDataRead(fn_, i) || writesGlobalMemory(fn_, i);
        if (access && !(spin && spin->contains(fn_, i)) && !isPollAccess(i) && !flow_.sameAddress(i, poll))
          dataAfter = true;
      }
    };
    BlockId start = fn_.blockOf[poll];
    visit(start, poll + 1);
    for (BlockId s : fn_.blocks[start].successors) work.push_back(s);
    while (!work.empty()) {
      BlockId b = work.back();
      work.pop_back();
      if (seen[b]) continue;
      seen[b] = 1;
      visit(b, fn_.blocks[b].first);
      for (BlockId s : fn_.blocks[b].successors) work.push_back(s);
    }
    if (!dataAfter) endOfKernelWaits_.push_back(poll);
  }
}

bool ProtocolModel::isSignalCandidate(InstId i) const {
  return isFlagWrite(fn_.instructions[i].effect) && !isFloatingPointData(i) && !isPoll(i) &&
         !isConsumingDecrement(i);
}

// The partner is outside the kernel (the host through mapped memory, a later
// kernel) when no poll here reads the flag. Judged only on clear evidence: one
// word of a parameter object, the same for every thread, written by a
// volatile/relaxed/stronger store or by an atomic at explicit .sys scope. A
// relaxed .gpu counter (a count of results, a work index) is not evidence.
bool ProtocolModel::isOutboundSignal(InstId i) const {
  const MemoryEffect& e = fn_.instructions[i].effect;
  if (e.kind == EffectKind::ReadModifyWrite && e.scope != Scope::Sys) return false;
  std::string root = rootOf(flow_, i);
  if (!root.starts_with("param:")) return false;
  return isThreadUniform(flow_.addressKey(i, e.address));
}

// --- Queries --------------------------------------------------------------

const SpinLoop* ProtocolModel::spinContaining(InstId inst) const {
  if (inst < 0 || static_cast<size_t>(inst) >= spinOfPoll_.size() || spinOfPoll_[inst] < 0) return nullptr;
  return &spins_[spinOfPoll_[inst]];
}

bool ProtocolModel::isPollAccess(InstId inst) const {
  if (isPoll(inst)) return true;
  return std::any_of(polledWords_.begin(), polledWords_.end(), [&](InstId p) { return flow_.sameAddress(inst, p); });
}

Alias ProtocolModel::alias(InstId a, InstId b) const {
  if (fn_.instructions[a].effect.address < 0 || fn_.instructions[b].effect.address < 0) return Alias::May;
  auto wa = wordOf(flow_, a), wb = wordOf(flow_, b);
  if (wa && wb && wa->base == wb->base) {
    if (wa->offset == wb->offset) return Alias::Must;
    int64_t endA = wa->offset + widthOf(fn_.instructions[a]), endB = wb->offset + widthOf(fn_.instructions[b]);
    if (endA <= wb->offset || endB <= wa->offset) return Alias::No;
    return Alias::May;
  }
  std::string ra = rootOf(flow_, a), rb = rootOf(flow_, b);
  if (ra.empty() || rb.empty() || ra == rb) return Alias::May;
  // A pointer read from a table does not point into the table itself.
  if (isLoadedRoot(ra) && tableOf(ra) == rb) return Alias::No;
  if (isLoadedRoot(rb) && tableOf(rb) == ra) return Alias::No;
  // Two different symbols are two objects.
  if (ra.starts_with("sym:") && rb.starts_with("sym:")) return Alias::No;
  return Alias::May;  // two parameters may point into one buffer (PTX keeps no __restrict__)
}

bool ProtocolModel::maySameWord(InstId a, InstId b) const {
  return flow_.mayShareObject(a, b) && alias(a, b) != Alias::No;
}

bool ProtocolModel::readsImmutableInput(InstId read) const {
  if (!isNonCoherent(fn_.instructions[read])) return false;
  std::string root = rootOf(flow_, read);
  return !root.empty() && !isLoadedRoot(root) && !mayBeWrittenByKernel(read);
}

bool ProtocolModel::isStaleProneNonCoherentRead(InstId read) const {
  if (!isDataRead(fn_, read) || !isNonCoherent(fn_.instructions[read])) return false;
  std::string root = rootOf(flow_, read);
  return isLoadedRoot(root) || (!root.empty() && mayBeWrittenByKernel(read));
}

// A non-coherent read is the compiler's promise that no other pointer of the
// kernel writes it: only a write through the same root counts.
bool ProtocolModel::mayBeWrittenByKernel(InstId read) const {
  const bool nc = isNonCoherent(fn_.instructions[read]);
  std::string root = nc ? rootOf(flow_, read) : std::string();
  for (InstId w : writes_) {
    if (nc) {
      if (!root.empty() && rootOf(flow_, w) == root) return true;
      continue;
    }
    if (alias(w, read) != Alias::No) return true;
  }
  return false;
}

bool ProtocolModel::isGuardedRead(InstId read, InstId poll) const {
  if (!isDataRead(fn_, read) || isPollAccess(read) || flow_.sameAddress(read, poll)) return false;
  if (const SpinLoop* spin = spinContaining(poll); spin && spin->contains(fn_, read)) return false;
  std::string root = rootOf(flow_, read);
  if (root.empty() || isLoadedRoot(root)) return true;  // peer memory: written outside, not provably immutable
  if (mayBeWrittenByKernel(read)) return true;
  // The partner outside the kernel may have written anything not provably immutable.
  bool partnerInKernel =
      std::any_of(signals_.begin(), signals_.end(), [&](InstId s) { return maySameWord(s, poll); });
  return !partnerInKernel && !readsImmutableInput(read);
}

bool ProtocolModel::isEndOfKernelWait(InstId poll) const {
  return std::binary_search(endOfKernelWaits_.begin(), endOfKernelWaits_.end(), poll);
}

bool ProtocolModel::mayBeReadAfterWait(InstId write, InstId signal) const {
  for (size_t k = 0; k < polledWords_.size(); ++k) {
    if (!maySameWord(polledWords_[k], signal)) continue;
    if (isEndOfKernelWait(polledWords_[k])) return true;
    for (InstId read : readsAfterPoll_[k]) {
      if (isNonCoherent(fn_.instructions[read])) {
        std::string root = rootOf(flow_, read);
        if (root.empty() || isLoadedRoot(root) || rootOf(flow_, write) == root) return true;
        continue;
      }
      if (alias(write, read) != Alias::No) return true;
    }
  }
  return false;
}

bool ProtocolModel::isPublishedWrite(InstId write, InstId signal) const {
  if (write == signal || !writesGlobalMemory(fn_, write)) return false;
  if (flow_.sameAddress(write, signal)) return false;
  // Another signal on the same flag object (a flag written to every peer in turn).
  if (std::binary_search(signals_.begin(), signals_.end(), write) ||
      std::binary_search(outboundSignals_.begin(), outboundSignals_.end(), write)) {
    std::string a = rootOf(flow_, write), b = rootOf(flow_, signal);
    if (a.empty() || a == b) return false;
  }
  if (std::binary_search(outboundSignals_.begin(), outboundSignals_.end(), signal)) return true;
  return mayBeReadAfterWait(write, signal);
}

// --- Ordering and scope ---------------------------------------------------

bool ProtocolModel::opaqueCallMayFence(InstId inst) const {
  return fn_.instructions[inst].effect.kind == EffectKind::Call;
}

bool ProtocolModel::isAcquire(InstId inst) const { return isAcquireFence(fn_, inst) || opaqueCallMayFence(inst); }

bool ProtocolModel::releasesFor(InstId inst, InstId signal) const {
  if (isReleaseFence(fn_, inst) || opaqueCallMayFence(inst)) return true;
  if (inst == signal) return false;
  const MemoryEffect& e = fn_.instructions[inst].effect;
  const MemoryEffect& s = fn_.instructions[signal].effect;
  return s.kind == EffectKind::ReadModifyWrite && hasReleaseSemantics(e) &&
         (e.kind == EffectKind::ReadModifyWrite || e.kind == EffectKind::Store) && flow_.sameAddress(inst, signal);
}

Scope ProtocolModel::scopeOf(InstId inst) const {
  if (opaqueCallMayFence(inst)) return Scope::Sys;
  Scope s = fn_.instructions[inst].effect.scope;
  return s == Scope::None ? Scope::Gpu : s;
}

Scope ProtocolModel::requiredScope(InstId access) const {
  int operand = fn_.instructions[access].effect.address;
  if (operand < 0) return Scope::Gpu;
  if (flow_.isLoadedPointer(access, operand)) return Scope::Sys;
  // A flag for the host or another kernel: .sys covers either.
  if (std::binary_search(outboundSignals_.begin(), outboundSignals_.end(), access)) return Scope::Sys;
  std::string root = rootOf(flow_, access);
  if (!root.empty())
    for (InstId s : systemSignalling_)
      if (rootOf(flow_, s) == root) return Scope::Sys;
  // A kernel that raises flags on peer GPUs and waits on a flag of its own:
  // the flag it waits on is raised by the peers.
  if (raisesPeerFlags_ && isPoll(access)) return Scope::Sys;
  return Scope::Gpu;
}

// --- Named facts ----------------------------------------------------------

bool ProtocolModel::isConsumingDecrement(InstId inst) const {
  const auto& i = fn_.instructions[inst];
  if (i.effect.kind != EffectKind::ReadModifyWrite || !i.hasModifier("add") || i.operands.empty()) return false;
  std::string amount = flow_.operandKey(inst, static_cast<int>(i.operands.size()) - 1);
  if (!amount.starts_with("-") && !amount.starts_with("neg(")) return false;
  for (InstId poll : polledWords_)
    if (flow_.sameAddress(poll, inst) && reachable(fn_, poll, inst)) return true;
  return false;
}

bool ProtocolModel::isFloatingPointData(InstId inst) const {
  static constexpr std::string_view kFloatTypes[] = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"};
  for (std::string_view type : kFloatTypes)
    if (fn_.instructions[inst].hasModifier(type)) return true;
  return false;
}

}  // namespace fenceline::model
