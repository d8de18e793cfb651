// The hand-off model (HandOffs.h): instruction classes, byte overlap,
// barrier pairing and the per-(access, async operation) hand-off walks,
// moved here from checks/ProxyCommon.cpp (issue 33) so that the function
// model owns them. See ../../shared/ordering-rules.md, proxy-war and proxy-raw.
#include "model/HandOffs.h"

#include <algorithm>
#include <cstdlib>

#include "model/CopyCompletion.h"
#include "model/Limits.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::model::handoff {

namespace {

const MemoryEffect& effectOf(const FunctionModel& fn, InstId inst) { return fn.instructions[inst].effect; }


bool never(InstId) { return false; }

// How a block walk goes on after a block: into its successors, not past it
// (the path is cut there), or not at all (the walk is over).
enum class BlockStep { Continue, Cut, Done };

// The forward walk of HandOffAnalysis's questions: breadth first over the blocks
// entered from the end of `start`, each once and from its top (`start` itself
// again only around a loop). `enter(b)` visits block b and says how the walk
// goes on; the caller scans the rest of `start` itself.
template <class Enter>
void walkBlocksAfter(const FunctionModel& fn, BlockId start, Enter enter) {
  std::vector<char> seen(fn.blocks.size(), 0);
  std::vector<BlockId> queue;
  auto enqueueNext = [&](BlockId b) {
    for (BlockId n : fn.blocks[b].successors)
      if (n >= 0 && !seen[n]) {
        seen[n] = 1;
        queue.push_back(n);
      }
  };
  enqueueNext(start);
  for (size_t head = 0; head < queue.size(); ++head) {
    const BlockStep step = enter(queue[head]);
    if (step == BlockStep::Done) return;
    if (step == BlockStep::Continue) enqueueNext(queue[head]);
  }
}

}  // namespace

bool isGenericSharedAccess(const FunctionModel& fn, InstId inst) {
  const auto& e = effectOf(fn, inst);
  if (e.kind != EffectKind::Load && e.kind != EffectKind::Store && e.kind != EffectKind::ReadModifyWrite) return false;
  if (e.proxy != Proxy::Generic || e.address < 0) return false;
  if (e.mbarrier >= 0) return false;  // st.async / red.async: completion through an mbarrier, remote
  if (isSharedSpace(e.space)) return true;
  if (e.space != Space::Generic || !fn.memory) return false;
  return isSharedSpace(fn.memory->space(inst, e.address));
}

bool isGenericSharedWrite(const FunctionModel& fn, InstId inst) {
  return effectOf(fn, inst).writes && isGenericSharedAccess(fn, inst);
}

std::vector<GenericAccess> genericSharedAccesses(const FunctionModel& fn, bool writesOnly) {
  std::vector<GenericAccess> out;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;  // unreachable code
    if (writesOnly ? isGenericSharedWrite(fn, i) : isGenericSharedAccess(fn, i)) out.push_back({i, i});
  }
  const CopyCompletions completions(fn);
  for (InstId copy : completions.copies())
    for (InstId point : completions.of(copy)) out.push_back({copy, point});
  std::sort(out.begin(), out.end());
  return out;
}

bool isAsyncSharedWrite(const FunctionModel& fn, InstId inst) {
  const auto& e = effectOf(fn, inst);
  return e.kind == EffectKind::AsyncCopy && e.proxy == Proxy::Async && e.writes && e.destination >= 0 &&
         isSharedSpace(e.destinationSpace);
}

bool isAsyncSharedRead(const FunctionModel& fn, InstId inst) {
  const auto& e = effectOf(fn, inst);
  if (e.proxy != Proxy::Async) return false;
  if (e.kind == EffectKind::AsyncCopy) return e.source >= 0 && isSharedSpace(e.sourceSpace);
  return (e.kind == EffectKind::Wgmma || e.kind == EffectKind::Tcgen05) && e.reads;
}

bool readsThroughDescriptor(const FunctionModel& fn, InstId inst) {
  const auto k = effectOf(fn, inst).kind;
  return k == EffectKind::Wgmma || k == EffectKind::Tcgen05;
}

bool isSharedProxyFence(const FunctionModel& fn, InstId inst) {
  const auto& e = effectOf(fn, inst);
  if (e.kind != EffectKind::ProxyFence || e.proxy != Proxy::Async) return false;
  // fence.proxy.async::generic.acquire orders async-proxy accesses before
  // later generic ones: the other direction.
  if (fn.instructions[inst].hasModifier("acquire")) return false;
  return e.fenceSpace == Space::None || isSharedSpace(e.fenceSpace);
}

bool fenceCoversThreadsOf(const FunctionModel& fn, InstId fence, InstId access) {
  if (!fn.roles) return true;
  ThreadSet f = fn.roles->instructionSet(fence);
  if (f == ThreadSet::All || f == ThreadSet::Subset) return true;
  ThreadSet a = fn.roles->instructionSet(access);
  if (f == a) return true;
  // The access itself is made by one thread, which is also in the fence's set
  // when the fence is only one lane or one warp wide (thread 0 is lane 0 of warp 0).
  return (a == ThreadSet::OneThread || a == ThreadSet::OneBlockThread) &&
         (f == ThreadSet::OneLane || f == ThreadSet::OneWarp || f == ThreadSet::OneThread);
}

bool isAcquirePoint(const FunctionModel& fn, InstId inst) {
  auto k = effectOf(fn, inst).kind;
  return k == EffectKind::CtaBarrier || k == EffectKind::MbarrierWait;
}

bool isHandOffArrive(const FunctionModel& fn, InstId inst) {
  const auto& in = fn.instructions[inst];
  const auto& e = in.effect;
  if (e.kind != EffectKind::MbarrierArrive || e.proxy == Proxy::Async) return false;
  if (in.opcode() != "mbarrier") return false;  // cp.async.mbarrier.arrive: Ampere copy completion
  for (const auto& m : in.syntax->modifiers)
    if (m.starts_with("expect_tx")) return false;
  return true;
}

bool isMbarrierWait(const FunctionModel& fn, InstId inst) {
  return effectOf(fn, inst).kind == EffectKind::MbarrierWait;
}

namespace {

bool isCtaNamedBarrierOp(const FunctionModel& fn, InstId inst) {
  const auto& in = fn.instructions[inst];
  return (in.opcode() == "bar" || in.opcode() == "barrier") && !in.hasModifier("cluster") && !in.hasModifier("red") &&
         !in.operands.empty();
}

}  // namespace

bool isNamedBarrierArrive(const FunctionModel& fn, InstId inst) {
  return effectOf(fn, inst).kind == EffectKind::CtaBarrierArrive && isCtaNamedBarrierOp(fn, inst);
}

bool isNamedBarrierSync(const FunctionModel& fn, InstId inst) {
  if (effectOf(fn, inst).kind != EffectKind::CtaBarrier || !isCtaNamedBarrierOp(fn, inst)) return false;
  const auto& ops = fn.instructions[inst].operands;
  const bool idZero = ops[0].kind == ptx::Operand::Kind::Integer && ops[0].intValue == 0;
  return !idZero || ops.size() >= 2;
}

std::optional<bool> sameNamedBarrier(const FunctionModel& fn, InstId a, InstId b) {
  const auto& x = fn.instructions[a].operands[0];
  const auto& y = fn.instructions[b].operands[0];
  using Kind = ptx::Operand::Kind;
  if (x.kind == Kind::Integer && y.kind == Kind::Integer) return x.intValue == y.intValue;
  if (!fn.values) return std::nullopt;
  const std::optional<int64_t> cx = fn.values->constantOf(a, 0), cy = fn.values->constantOf(b, 0);
  if (cx && cy) return *cx == *cy;
  const int32_t ix = fn.values->identity(a, 0), iy = fn.values->identity(b, 0);
  if (ix >= 0 && ix == iy) return true;
  return std::nullopt;
}

bool sameBarrier(const FunctionModel& fn, InstId a, InstId b) {
  const auto& ea = effectOf(fn, a);
  const auto& eb = effectOf(fn, b);
  if (ea.address < 0 || eb.address < 0 || !fn.memory) return true;
  return fn.memory->alias(a, ea.address, b, eb.address) != AliasResult::No;
}

int64_t copyExtent(const FunctionModel& fn, InstId async, int operand) {
  return fn.memory ? fn.memory->copyExtent(async, operand) : -1;
}

bool mayOverlap(const FunctionModel& fn, InstId access, InstId async, int operand, int64_t extent) {
  return overlapOf(fn, access, async, operand, extent) != Overlap::No;
}

Overlap overlapOf(const FunctionModel& fn, InstId access, InstId async, int operand, int64_t extent,
                  const MemoryAnalysis::MatrixOperands* known) {
  const auto& ea = effectOf(fn, access);
  if (ea.address < 0 || !fn.memory) return Overlap::Yes;
  const MemoryAnalysis& memory = *fn.memory;
  int64_t size = memory.accessSize(access, ea.address);
  if (size <= 0) size = kMaxAccessBytes;
  if (readsThroughDescriptor(fn, async)) {
    // Disjoint when every decoded operand misses the access's bytes; certain
    // when one operand at its fewest rows meets them.
    MemoryAnalysis::MatrixOperands computed;
    if (!known) computed = memory.matrixOperands(async);
    const MemoryAnalysis::MatrixOperands& operands = known ? *known : computed;
    if (!operands.decoded) return Overlap::Uncertain;
    MemoryLocation accessed = memory.location(access, ea.address, size);
    Overlap overlap = Overlap::No;
    for (size_t k = 0; k < operands.operands.size(); ++k) {
      if (memory.alias(accessed, operands.operands[k]) == AliasResult::No) continue;
      if (memory.alias(accessed, operands.fewest[k]) != AliasResult::No) return Overlap::Yes;
      overlap = Overlap::Uncertain;
    }
    return overlap;
  }
  if (operand < 0) return Overlap::Yes;
  return memory.alias(access, ea.address, size, async, operand, extent) != AliasResult::No ? Overlap::Yes
                                                                                                  : Overlap::No;
}

AccessIndex::AccessIndex(const FunctionModel& fn, std::vector<GenericAccess> accesses)
    : accesses_(std::move(accesses)) {
  for (const GenericAccess& a : accesses_) {
    const int operand = effectOf(fn, a.access).address;
    // At least the bytes overlapOf assumes (its accessSize, 16 when unknown).
    const int64_t size = fn.memory && operand >= 0 ? std::max(kMaxAccessBytes, fn.memory->accessSize(a.access, operand))
                                                   : kMaxAccessBytes;
    MemoryLocation loc = fn.memory && operand >= 0 ? fn.memory->location(a.access, operand, size) : MemoryLocation{};
    if (!loc.object.known() || !loc.bytes) {
      unbounded_.push_back(a);
      continue;
    }
    byObject_[loc.object].push_back({loc.bytes->begin, loc.bytes->end, a});
    int64_t& longest = longest_[loc.object];
    longest = std::max(longest, loc.bytes->end - loc.bytes->begin);
  }
  for (auto& [object, entries] : byObject_)
    std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) { return x.begin < y.begin; });
}

std::vector<GenericAccess> AccessIndex::candidates(const MemoryLocation& target) const {
  if (!target.object.known() || !target.bytes) return accesses_;
  std::vector<GenericAccess> out = unbounded_;
  // Objects other than the target's may still alias it (two parameters, a
  // loaded pointer): those groups are candidates whole; the same object's
  // group only where the bytes can meet.
  for (const auto& [object, entries] : byObject_) {
    if (!(object == target.object)) {
      for (const Entry& e : entries) out.push_back(e.access);
      continue;
    }
    const int64_t longest = longest_.at(object);
    auto first = std::lower_bound(entries.begin(), entries.end(), target.bytes->begin - longest,
                                  [](const Entry& e, int64_t value) { return e.begin < value; });
    for (auto it = first; it != entries.end() && it->begin < target.bytes->end; ++it)
      if (it->end > target.bytes->begin) out.push_back(it->access);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<InstId> waitsBefore(const FunctionModel& fn, InstId async) {
  return findReachingBackward(
      fn, async, [&](InstId i) { return isMbarrierWait(fn, i); }, never);
}

HandOffAnalysis::HandOffAnalysis(const FunctionModel& fn)
    : fn_(fn), flags_(fn.instructions.size(), 0), barrierKeys_(fn.instructions.size(), INT64_MIN) {
  if (fn.reachability) {
    blocks_ = fn.reachability.get();
  } else {
    ownBlocks_ = std::make_unique<BlockReachability>(fn);
    blocks_ = ownBlocks_.get();
  }
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    const auto& e = effectOf(fn, i);
    uint8_t f = 0;
    if (handoff::isHandOffArrive(fn, i) || handoff::isNamedBarrierArrive(fn, i)) f |= kHandOffArrive;
    if (handoff::isSharedProxyFence(fn, i)) f |= kSharedProxyFence;
    if (e.kind == EffectKind::ProxyFence && e.proxy == Proxy::Async) {
      f |= kAnyProxyFence;
      hasProxyFence_ = true;
    }
    if (handoff::isAcquirePoint(fn, i)) f |= kAcquirePoint;
    if (e.kind == EffectKind::CtaBarrier) f |= kCtaBarrier;
    if (handoff::isAsyncSharedWrite(fn, i) || handoff::isAsyncSharedRead(fn, i)) f |= kAsyncSharedOperation;
    flags_[i] = f;
    if (f & kSharedProxyFence) sharedProxyFences_.push_back(i);
    if (f & (kSharedProxyFence | kAcquirePoint)) fencesAndAcquirePoints_.push_back(i);
  }
}

const std::vector<GenericAccess>& HandOffAnalysis::accesses(bool writesOnly) const {
  std::optional<std::vector<GenericAccess>>& kept = accesses_[writesOnly ? 1 : 0];
  if (!kept) kept = genericSharedAccesses(fn_, writesOnly);
  return *kept;
}

bool HandOffAnalysis::sameBarrier(InstId a, InstId b) const {
  auto [it, inserted] = sameBarrier_.try_emplace({a, b}, false);
  if (inserted) {
    // A named barrier meets only a named barrier, an mbarrier only an mbarrier.
    const bool namedA = isNamedBarrierArrive(fn_, a) || isNamedBarrierSync(fn_, a);
    const bool namedB = isNamedBarrierArrive(fn_, b) || isNamedBarrierSync(fn_, b);
    if (namedA || namedB)
      it->second = namedA && namedB && sameNamedBarrier(fn_, a, b).value_or(true);
    else
      it->second = handoff::sameBarrier(fn_, a, b);
  }
  return it->second;
}

int64_t HandOffAnalysis::barrierKey(InstId wait) const {
  int64_t& key = barrierKeys_[wait];
  if (key != INT64_MIN) return key;
  if (isNamedBarrierSync(fn_, wait)) {
    // Keys of their own: an immediate id, else the id's value identity.
    const auto& id = fn_.instructions[wait].operands[0];
    const int32_t identity = fn_.values ? fn_.values->identity(wait, 0) : -1;
    key = id.kind == ptx::Operand::Kind::Integer ? (int64_t(1) << 48) + id.intValue
          : identity >= 0                        ? (int64_t(1) << 40) + identity
                                                 : -1 - static_cast<int64_t>(wait);
    return key;
  }
  const int operand = effectOf(fn_, wait).address;
  int32_t id = operand >= 0 && fn_.values ? fn_.values->identity(wait, operand) : -1;
  key = id >= 0 ? id : -1 - static_cast<int64_t>(wait);  // unknown: the wait itself
  return key;
}

IssuerWaits HandOffAnalysis::issuerWaits(InstId async) const {
  IssuerWaits issuer;
  if (!waitBlocks_) {
    std::vector<InstId> waits;
    for (InstId i = 0; i < static_cast<InstId>(fn_.instructions.size()); ++i)
      if (isMbarrierWait(fn_, i)) waits.push_back(i);
    waitBlocks_.emplace(fn_, waits);
  }
  issuer.waits = findReachingBackward(
      fn_, async, [&](InstId i) { return isMbarrierWait(fn_, i); }, never, *waitBlocks_);
  // The nearest named barrier syncs too, found apart (a bar.sync between an
  // mbarrier wait and the operation does not hide that wait).
  if (!namedSyncBlocks_) {
    std::vector<InstId> syncs;
    for (InstId i = 0; i < static_cast<InstId>(fn_.instructions.size()); ++i)
      if (isNamedBarrierSync(fn_, i)) syncs.push_back(i);
    namedSyncBlocks_.emplace(fn_, syncs);
  }
  std::vector<InstId> named = findReachingBackward(
      fn_, async, [&](InstId i) { return isNamedBarrierSync(fn_, i); }, never, *namedSyncBlocks_);
  issuer.waits.insert(issuer.waits.end(), named.begin(), named.end());
  std::sort(issuer.waits.begin(), issuer.waits.end());
  issuer.waits.erase(std::unique(issuer.waits.begin(), issuer.waits.end()), issuer.waits.end());
  std::vector<int64_t> keys;
  for (InstId w : issuer.waits) {
    int64_t key = barrierKey(w);
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    keys.push_back(key);
    issuer.distinct.push_back(w);
  }
  std::sort(keys.begin(), keys.end());
  issuer.keySet = keySets_.try_emplace(std::move(keys), static_cast<int>(keySets_.size())).first->second;
  return issuer;
}

bool HandOffAnalysis::reaches(InstId from, InstId to) const {
  const BlockId fromBlock = fn_.blockOf[from], toBlock = fn_.blockOf[to];
  if (fromBlock < 0 || toBlock < 0) return false;
  if (fromBlock == toBlock && from < to) return true;
  // Entered from the top after `from`.
  if (blocks_->hasClosures()) return blocks_->reaches(fromBlock, toBlock);
  // A function too large for closures: one walk per source block, kept.
  auto [it, inserted] = walked_.try_emplace(fromBlock);
  std::vector<char>& seen = it->second;
  if (inserted) {
    seen.assign(fn_.blocks.size(), 0);
    walkBlocksAfter(fn_, fromBlock, [&](BlockId b) {
      seen[b] = 1;
      return BlockStep::Continue;
    });
  }
  return seen[toBlock] != 0;
}

// The walk of everyPathPasses (Paths.cpp) from `access`, cut at the
// fences that cover its threads: each block entered once from its top, the
// access's own block scanned first from just after the access.
HandOffAnalysis::UnfencedWalk HandOffAnalysis::walkUnfenced(InstId access) const {
  UnfencedWalk walk;
  auto cuts = [&](InstId i) { return isSharedProxyFence(i) && fenceCoversThreadsOf(fn_, i, access); };
  // The last instruction visited in [begin, end): the first cut, else end - 1.
  auto scan = [&](InstId begin, InstId end, bool& cut) {
    for (InstId i = begin; i < end; ++i)
      if (cuts(i)) {
        cut = true;
        return i;
      }
    cut = false;
    return end - 1;
  };
  const BlockId start = fn_.blockOf[access];
  bool cut = false;
  walk.startEnd = scan(access + 1, fn_.blocks[start].last, cut);
  if (!cut)
    walkBlocksAfter(fn_, start, [&](BlockId b) {
      walk.entered.push_back({b, scan(fn_.blocks[b].first, fn_.blocks[b].last, cut)});
      return cut ? BlockStep::Cut : BlockStep::Continue;
    });
  std::sort(walk.entered.begin(), walk.entered.end());
  return walk;
}

bool HandOffAnalysis::reachesUnfenced(InstId access, InstId to) const {
  const BlockId start = fn_.blockOf[access], block = fn_.blockOf[to];
  if (start < 0 || block < 0) return false;
  auto [it, inserted] = unfenced_.try_emplace(access);
  if (inserted) it->second = walkUnfenced(access);
  const UnfencedWalk& walk = it->second;
  if (block == start && to > access && to <= walk.startEnd) return true;
  auto entered = std::lower_bound(walk.entered.begin(), walk.entered.end(), std::pair<BlockId, InstId>{block, -1});
  return entered != walk.entered.end() && entered->first == block && to <= entered->second;
}

bool HandOffAnalysis::sealed(InstId access) const {
  // The walk of walkUnfenced, ended (unsealed) at the first hand-off arrive
  // or async operation: every arrive outside that walk is fenced by the
  // accessor (the arrive case of analyzeHandOff), every async operation
  // outside it is unreachable or fenced (its same-thread case).
  bool open = false;
  auto cuts = [&](InstId i) { return isSharedProxyFence(i) && fenceCoversThreadsOf(fn_, i, access); };
  auto scan = [&](InstId begin, InstId end) {  // true: the walk goes on past this block
    for (InstId i = begin; i < end; ++i) {
      if (flags_[i] & (kHandOffArrive | kAsyncSharedOperation)) {
        open = true;
        return false;
      }
      if (cuts(i)) return false;
    }
    return true;
  };
  const BlockId start = fn_.blockOf[access];
  if (start < 0) return true;
  if (scan(access + 1, fn_.blocks[start].last))
    walkBlocksAfter(fn_, start, [&](BlockId b) {
      if (scan(fn_.blocks[b].first, fn_.blocks[b].last)) return BlockStep::Continue;
      return open ? BlockStep::Done : BlockStep::Cut;
    });
  return !open;
}

const std::vector<HandOffAnalysis::ArriveHandOff>& HandOffAnalysis::handOffArrives(InstId access,
                                                                                   const IssuerWaits& issuer) const {
  const FunctionModel& fn = fn_;
  const HandOffAnalysis& reach = *this;
  auto [cached, fresh] = arrives_.try_emplace({access, issuer.keySet});
  if (!fresh) return cached->second;
  auto coveringFence = [&](InstId i) { return reach.isSharedProxyFence(i) && fenceCoversThreadsOf(fn, i, access); };
  auto matchesAWait = [&](InstId arrive) {
    return std::any_of(issuer.distinct.begin(), issuer.distinct.end(),
                       [&](InstId w) { return reach.sameBarrier(arrive, w); });
  };
  // The walk enters only blocks from which a hand-off arrive is reachable:
  // without one ahead, it used to cross the rest of the function per access.
  if (!arriveBlocks_) {
    std::vector<InstId> arrives;
    for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i)
      if (reach.isHandOffArrive(i)) arrives.push_back(i);
    arriveBlocks_.emplace(fn, arrives, -1);
  }
  for (InstId arrive : findAllReachable(
           fn, access, [&](InstId i) { return reach.isHandOffArrive(i) && matchesAWait(i); }, never,
           kMaxHandOffArrives, *arriveBlocks_))
    cached->second.push_back({arrive, everyPathPasses(fn, access, arrive, coveringFence)});
  return cached->second;
}

// A read that only ever precedes the async write (no cycle through both)
// would read the buffer before it is filled: in a correct program it reads
// something else that the alias analysis could not tell apart (a TMEM base
// address or a scheduler word next to the tiles). Not so when the copy
// provably begins at the word read for some index value (Triton reuses the
// tcgen05.alloc result word as stage 0); and writes never: initializing a
// buffer generically before its first async fill is the hazard itself.
bool HandOffAnalysis::readsOnlyBeforeFill(InstId access, InstId async) const {
  const FunctionModel& fn = fn_;
  const HandOffAnalysis& reach = *this;
  // Only a load reads (a write, or a cp.async's completion point, does not).
  if (effectOf(fn, access).kind != EffectKind::Load || reach.reaches(async, access)) return false;
  return !(fn.memory && fn.memory->copyMayBeginAt(async, access, effectOf(fn, access).address));
}

bool HandOffAnalysis::mayHandOff(InstId access, InstId async, const IssuerWaits& issuer) const {
  const HandOffAnalysis& reach = *this;
  // The two cases of analyzeHandOff, up to their first test that does not
  // depend on the pair alone.
  if (reach.reaches(access, async)) {
    if (readsOnlyBeforeFill(access, async)) return false;
    // A fence of the accessing threads on every path: everyPathPasses holds
    // there already with the covering fences alone.
    return reach.reachesUnfenced(access, async);
  }
  if (issuer.waits.empty()) return false;
  // The arrives only once some overlapping pair has asked for them: their
  // walk is not cheap, and most accesses overlap no copy.
  auto cached = arrives_.find({access, issuer.keySet});
  if (cached == arrives_.end()) return true;
  return std::any_of(cached->second.begin(), cached->second.end(),
                     [](const HandOffAnalysis::ArriveHandOff& a) { return !a.fencedByAccessor; });
}

HandOff HandOffAnalysis::analyze(InstId access, InstId async, const IssuerWaits& issuer, bool reportAtAsync) const {
  const FunctionModel& fn = fn_;
  const HandOffAnalysis& reach = *this;
  HandOff result;
  const std::vector<InstId>& waits = issuer.waits;
  auto anyFence = [&](InstId i) { return reach.isSharedProxyFence(i); };
  auto anyProxyFence = [&](InstId i) { return reach.isAnyProxyFence(i); };
  auto coveringFence = [&](InstId i) { return reach.isSharedProxyFence(i) && fenceCoversThreadsOf(fn, i, access); };
  auto matchesAWait = [&](InstId arrive) {
    return std::any_of(issuer.distinct.begin(), issuer.distinct.end(),
                       [&](InstId w) { return reach.sameBarrier(arrive, w); });
  };

  if (reach.reaches(access, async)) {
    if (readsOnlyBeforeFill(access, async)) return result;
    // The access reaches the async operation on this thread's own paths
    // (through bar.sync, through an mbarrier round trip, or directly). A path
    // is safe once it passes a fence all accessing threads execute, or an
    // acquire point after which every path to the operation is fenced.
    auto stop = [&](InstId i) {
      if (coveringFence(i)) return true;
      if (!reach.isAcquirePoint(i)) return false;
      auto [it, inserted] = fencedAfterAcquire_.try_emplace({i, async}, false);
      if (inserted) it->second = everyPathPasses(fn, i, async, anyFence, reach.sharedProxyFences());
      return it->second;
    };
    if (everyPathPasses(fn, access, async, stop, reach.fencesAndAcquirePoints())) return result;
    result.hazard = true;
    result.site = async;
    result.kind = HandOff::Kind::SameThread;
    // (A function without a proxy fence has none to find: kernels that never
    // fence draw a finding per pair, and each search would walk everything.)
    result.fence = reach.hasProxyFence() ? findReachable(fn, access, anyProxyFence, [&](InstId i) { return i == async; })
                                         : -1;
    // The hand-off is a barrier or arrive between the two: one the async
    // operation follows. A barrier reached only on paths that skip the
    // operation (the threads that do not issue it, after the issuer has
    // issued) hands nothing to it; without one between, the hand-off is the
    // issuing thread's own program order (shape M, docs/real-code.md).
    InstId h = findReachable(
        fn, access,
        [&](InstId i) {
          const bool handOff = reach.isCtaBarrier(i) || (reach.isHandOffArrive(i) && matchesAWait(i));
          return handOff && reach.reaches(i, async);
        },
        [&](InstId i) { return i == async; });
    if (h >= 0) result.via = h;
    if (h >= 0 && !reportAtAsync) {
      result.site = h;
      result.kind = effectOf(fn, h).kind == EffectKind::CtaBarrier ? HandOff::Kind::Barrier : HandOff::Kind::Arrive;
    }
    return result;
  }

  // Different roles (a producer warp issues the copy): the hand-off is an
  // mbarrier arrive after the access on a barrier the issuer waits on.
  if (waits.empty()) return result;
  for (const auto& [arrive, fencedByAccessor] : handOffArrives(access, issuer)) {
    if (fencedByAccessor) continue;
    bool issuerFenced = true;
    for (InstId w : waits) {
      if (!reach.sameBarrier(arrive, w)) continue;
      auto [it, inserted] = issuerFenced_.try_emplace({w, async}, false);
      if (inserted) it->second = everyPathPasses(fn, w, async, anyFence, reach.sharedProxyFences());
      if (!it->second) issuerFenced = false;
    }
    if (issuerFenced) continue;
    result.hazard = true;
    result.site = reportAtAsync ? async : arrive;
    result.kind = reportAtAsync ? HandOff::Kind::SameThread : HandOff::Kind::Arrive;
    result.via = arrive;
    if (!reach.hasProxyFence()) return result;
    result.fence = findReachable(fn, access, anyProxyFence, [&, arrive = arrive](InstId i) { return i == arrive; });
    if (result.fence < 0) {  // the issuer's fence, if it has one, is before its wait
      auto before = findReachingBackward(fn, async, anyProxyFence, never);
      if (!before.empty()) {
        result.fence = before.back();
        result.fenceIsIssuers = true;
      }
    }
    return result;
  }
  return result;
}

bool mayOrderThreads(const FunctionModel& fn, InstId inst) {
  const auto& e = effectOf(fn, inst);
  switch (e.kind) {
    case EffectKind::CtaBarrier:
    case EffectKind::CtaBarrierArrive:
    case EffectKind::WarpSync:
    case EffectKind::MbarrierArrive:
    case EffectKind::MbarrierWait:
    case EffectKind::Call:
    case EffectKind::Unknown:
      return true;
    case EffectKind::Load:
    case EffectKind::Store:
    case EffectKind::ReadModifyWrite:
      return e.semantics != Semantics::None && e.semantics != Semantics::Weak;
    default:
      return false;
  }
}

std::vector<InstId> unsynchronizedBefore(const FunctionModel& fn, InstId to, const std::function<bool(InstId)>& wanted) {
  std::vector<InstId> found;
  std::vector<char> seen(fn.blocks.size(), 0);
  std::vector<BlockId> work;
  // Scans [first, from) of block b backwards; true when it reached the top
  // without a synchronization (the walk goes on to the predecessors).
  auto scan = [&](BlockId b, InstId from) {
    for (InstId i = from - 1; i >= fn.blocks[b].first; --i) {
      if (mayOrderThreads(fn, i)) return false;
      if (wanted(i)) found.push_back(i);
    }
    return true;
  };
  const BlockId start = fn.blockOf[to];
  if (start < 0) return found;
  if (scan(start, to))
    for (BlockId p : fn.blocks[start].predecessors) work.push_back(p);
  while (!work.empty()) {
    poll();
    const BlockId b = work.back();
    work.pop_back();
    if (b < 0 || seen[b]) continue;
    seen[b] = 1;
    if (scan(b, fn.blocks[b].last))
      for (BlockId p : fn.blocks[b].predecessors) work.push_back(p);
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

std::vector<InstId> unsynchronizedAfter(const FunctionModel& fn, InstId from, const std::function<bool(InstId)>& wanted) {
  std::vector<InstId> found;
  // Scans [begin, end); true when it reached the end without a synchronization.
  auto scan = [&](InstId begin, InstId end) {
    for (InstId i = begin; i < end; ++i) {
      if (mayOrderThreads(fn, i)) return false;
      if (wanted(i)) found.push_back(i);
    }
    return true;
  };
  const BlockId start = fn.blockOf[from];
  if (start < 0) return found;
  if (scan(from + 1, fn.blocks[start].last))
    walkBlocksAfter(fn, start, [&](BlockId b) {
      return scan(fn.blocks[b].first, fn.blocks[b].last) ? BlockStep::Continue : BlockStep::Cut;
    });
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

AliasEvidence partnerEvidence(const FunctionModel& fn, InstId via, const std::vector<InstId>& waits) {
  if (isNamedBarrierArrive(fn, via)) {
    // bar.arrive id and the issuer's bar.sync id must be one named barrier.
    AliasEvidence named;
    for (InstId w : waits)
      if (isNamedBarrierSync(fn, w) && sameNamedBarrier(fn, via, w).value_or(false)) {
        named.result = AliasResult::Must;
        named.decided = true;
      }
    named.how = named.decided ? "named-barrier" : "named-barrier-id";
    return named;
  }
  // The arrive and the issuer's wait must be one barrier.
  AliasEvidence same;
  const int arriveAddress = effectOf(fn, via).address;
  for (InstId w : waits) {
    const int waitAddress = effectOf(fn, w).address;
    if (!fn.memory || arriveAddress < 0 || waitAddress < 0) continue;
    AliasEvidence e = fn.memory->aliasEvidence(via, arriveAddress, 0, w, waitAddress, 0, /*barriers=*/true);
    if (e.result == AliasResult::No) continue;
    if (e.decided || same.how.empty()) same = e;
    if (e.decided) break;
  }
  if (same.how.empty()) {
    same.how = "unknown-barrier";
    same.detail = "the barrier the issuer waits on could not be matched to this arrive's";
  }
  return same;
}

}  // namespace fenceline::model::handoff
