// Software group barriers between an initialization and the updates it must
// precede (ProtocolModel::isPublishedByGroupBarrier, Protocol.h).
//
// FlashInfer's multi-CTA radix top-k (topk.cuh) initializes a per-group
// counter in CTA 0 of the group and lets every CTA of the group update it only
// after a software barrier: thread 0 of each CTA releases (fence.acq_rel.gpu)
// and adds 1 to an arrival counter, spins with ld.acquire until the counter
// reaches the group's target, and a __syncthreads() hands the crossing to
// the block. The store is then ordered before the other blocks' updates:
//   store (X, thread c) -> release -> arrive (X, c) -> spin observes it
//   (Y, c) -> bar.sync (Y) -> update (Y, any thread).
//
// On the CFG this is read for the thread tid.x == c that executes the store
// (its guards pin tid.x; edges whose condition excludes that thread are not
// taken):
//  - X: every path of thread c from the store to the bar.sync passes a
//    release at .gpu or wider, then an atomic arrive on the polled word, then
//    the poll (an acquire at .gpu or wider, or a poll followed by an acquire
//    fence);
//  - Y: from D, the nearest block that dominates both the store and the
//    update, no path within one trip through D reaches the store after such
//    a bar.sync (X crosses none between D and the store), and every path
//    reaches the update only after one, before which thread c passed the
//    acquiring poll.
// The spin is taken to wait for every block's arrival of the same crossing
// (a counter barrier works only if every block crosses it as often as the
// others, so the blocks reach D having crossed it equally often): Y's first
// crossing after D includes X's first arrival after the store.
#include <algorithm>
#include <functional>
#include <optional>

#include "model/BranchEdges.h"
#include "model/Paths.h"
#include "model/Protocol.h"
#include "model/ThreadDecidedBranches.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using Kind = ptx::Operand::Kind;
constexpr int kMaxDepth = 8;

// m * tid.x + k: a value of the thread index alone, when the value analysis
// says so.
std::optional<std::pair<int64_t, int64_t>> affineInThreadIndex(const AbstractValue& v) {
  if (!v.known || v.hasBase() || v.terms.size() != 1 || v.terms[0].name != "%tid.x") return std::nullopt;
  return std::make_pair(v.terms[0].coefficient, v.constant);
}

// What tid.x == c says of predicate `reg` read at `at`: it has value `value`
// for that thread (1), it has the other value (0), or it is not known (-1)
// (model/ThreadDecidedBranches.h evaluates it).
int predicateForThread(const FunctionModel& fn, ValueReg reg, InstId at, bool value, int64_t c) {
  const std::optional<bool> holds = predicateForThreadIndex(fn, reg, at, c);
  if (!holds) return -1;
  return *holds == value ? 1 : 0;
}

// The c that `operand` == k at `at` forces on tid.x: the operand is m * tid.x
// + k0, or an `or` of values (all 0 when the or is 0) one of which is.
std::optional<int64_t> threadIndexEqual(const FunctionModel& fn, const ptx::Operand& op, InstId at, int64_t k,
                                        int depth = 0) {
  if (op.kind != Kind::Register || op.reg < 0 || depth > kMaxDepth) return std::nullopt;
  if (auto affine = affineInThreadIndex(fn.values->valueOf(op.reg, at)))
    if (affine->first != 0 && (k - affine->second) % affine->first == 0) return (k - affine->second) / affine->first;
  const InstId def = fn.values->definition(op.reg, at);
  if (def < 0 || k != 0) return std::nullopt;
  const Inst& in = fn.instructions[def];
  if (in.opcode() != "or" || in.operands.size() < 3) return std::nullopt;
  for (size_t i = 1; i <= 2; ++i)
    if (auto c = threadIndexEqual(fn, in.operands[i], def, 0, depth + 1)) return c;
  return std::nullopt;
}

// The c that predicate `reg` (read at `at`) having `value` forces on tid.x.
std::optional<int64_t> threadIndexPinnedBy(const FunctionModel& fn, ValueReg reg, InstId at, bool value,
                                           int depth = 0) {
  if (reg < 0 || depth > kMaxDepth) return std::nullopt;
  const std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
  if (defs.size() != 1) return std::nullopt;
  const Inst& in = fn.instructions[defs[0]];
  const auto& ops = in.operands;
  const std::string_view op = in.opcode();
  auto predicate = [&](size_t k) { return k < ops.size() && ops[k].kind == Kind::Register ? ops[k].reg : -1; };
  if (op == "not") return threadIndexPinnedBy(fn, predicate(1), defs[0], !value, depth + 1);
  if ((op == "and" && value) || (op == "or" && !value)) {
    for (size_t k = 1; k <= 2; ++k)
      if (auto c = threadIndexPinnedBy(fn, predicate(k), defs[0], value, depth + 1)) return c;
    return std::nullopt;
  }
  if (op != "setp" || ops.size() < 3) return std::nullopt;
  const bool equal = (in.hasModifier("eq") && value) || (in.hasModifier("ne") && !value);
  if (!equal) return std::nullopt;
  for (size_t k = 1; k <= 2; ++k) {
    const ptx::Operand& other = ops[3 - k];
    std::optional<int64_t> constant;
    if (other.kind == Kind::Integer) constant = other.intValue;
    else if (other.kind == Kind::Register && fn.values->valueOf(other.reg, defs[0]).isConstant())
      constant = fn.values->valueOf(other.reg, defs[0]).constant;
    if (constant)
      if (auto c = threadIndexEqual(fn, ops[k], defs[0], *constant)) return c;
  }
  return std::nullopt;
}

// The thread index tid.x that every thread executing `inst` has: from its
// own guard and from the branch edges that every path to it takes.
std::optional<int64_t> pinnedThreadIndex(const FunctionModel& fn, InstId inst) {
  const Inst& in = fn.instructions[inst];
  if (in.guard && in.guard->reg >= 0)
    if (auto c = threadIndexPinnedBy(fn, in.guard->reg, inst, !in.guard->negated)) return c;
  const BlockId block = fn.blockOf[inst];
  for (BlockId b = block >= 0 ? fn.idom[block] : -1; b >= 0; b = fn.idom[b]) {
    for (BlockId s : fn.blocks[b].successors) {
      if (!edgeDominatesBlock(fn, b, s, block)) continue;
      const auto condition = edgeCondition(fn, b, s);
      if (!condition) continue;
      if (auto c = threadIndexPinnedBy(fn, condition->predicate, condition->branch, condition->value)) return c;
    }
  }
  return std::nullopt;
}

}  // namespace

// The walk of thread tid.x == c from instruction `from` (inclusive) of
// `block`: the lowest phase it is in at each whole-block barrier it reaches,
// over every path. Phases advance in order: a release at .gpu or wider, an
// arrive on the polled word, the poll, its acquire.
void ProtocolModel::walkGroupBarrierPhases(BlockId block, InstId from, InstId poll, int64_t c, int8_t firstPhase,
                                           std::vector<int8_t>& lowestAtBarrier) const {
  enum Phase : int8_t { kNothing, kReleased, kArrived, kPolled, kAcquired };
  const MemoryEffect& pollEffect = fn_.instructions[poll].effect;
  const bool pollAcquires = hasAcquireSemantics(pollEffect) && pollEffect.scope >= Scope::Gpu;
  auto wideEnough = [&](InstId k) { return scopeOf(k) >= Scope::Gpu; };
  auto executedByThread = [&](InstId k) {
    const Inst& in = fn_.instructions[k];
    return !in.guard || in.guard->reg < 0 || predicateForThread(fn_, in.guard->reg, k, !in.guard->negated, c) == 1;
  };
  auto advance = [&](InstId k, int8_t phase) -> int8_t {
    const Inst& in = fn_.instructions[k];
    switch (phase) {
      case kNothing:
        if (isReleaseFence(fn_, k) && wideEnough(k) && executedByThread(k)) return kReleased;
        if (in.effect.kind == EffectKind::ReadModifyWrite && hasReleaseSemantics(in.effect) && wideEnough(k) &&
            executedByThread(k) && memory_.sameWord(k, poll))
          return kArrived;
        return phase;
      case kReleased:
        if (in.effect.kind == EffectKind::ReadModifyWrite && executedByThread(k) && memory_.sameWord(k, poll))
          return kArrived;
        return phase;
      case kArrived:
        if (k != poll) return phase;
        return pollAcquires ? kAcquired : kPolled;
      case kPolled:
        return isAcquireFence(fn_, k) && wideEnough(k) ? int8_t(kAcquired) : phase;
      default:
        return phase;
    }
  };
  // Lowest phase seen on entry to each block (a lower phase walks again).
  std::vector<int8_t> lowestEntry(fn_.blocks.size(), int8_t(kAcquired + 1));
  struct Item {
    BlockId block;
    InstId from;
    int8_t phase;
  };
  std::vector<Item> work{{block, from, firstPhase}};
  while (!work.empty()) {
    model::poll();
    Item item = work.back();
    work.pop_back();
    const BasicBlock& bb = fn_.blocks[item.block];
    int8_t phase = item.phase;
    for (InstId k = item.from; k < bb.last; ++k) {
      if (isWholeCtaBarrier(*fn_.instructions[k].syntax, fn_.instructions[k].effect)) lowestAtBarrier[k] = std::min(lowestAtBarrier[k], phase);
      phase = advance(k, phase);
    }
    for (BlockId s : bb.successors) {
      if (auto condition = edgeCondition(fn_, item.block, s))
        if (predicateForThread(fn_, condition->predicate, condition->branch, condition->value, c) == 0) continue;
      if (lowestEntry[s] <= phase) continue;
      lowestEntry[s] = phase;
      work.push_back({s, fn_.blocks[s].first, phase});
    }
  }
}

namespace {

// The nearest block that dominates both.
BlockId commonDominator(const FunctionModel& fn, BlockId a, BlockId b) {
  for (BlockId d = a; d >= 0; d = fn.idom[d])
    if (fn.dominates(d, b)) return d;
  return -1;
}

// Within one visit of `from` (paths from its first instruction that do not
// come back to it): can `target` be reached after passing an instruction for
// which `crossing` holds (afterCrossing), or without passing one?
bool reachedWithin(const FunctionModel& fn, BlockId from, InstId target, bool afterCrossing,
                   const std::function<bool(InstId)>& crossing) {
  std::vector<char> seen(fn.blocks.size() * 2, 0);
  std::vector<std::pair<BlockId, bool>> work{{from, false}};
  seen[from * 2] = 1;
  while (!work.empty()) {
    model::poll();
    auto [block, crossed] = work.back();
    work.pop_back();
    const BasicBlock& bb = fn.blocks[block];
    bool stopped = false;
    for (InstId k = bb.first; k < bb.last && !stopped; ++k) {
      if (k == target && crossed == afterCrossing) return true;
      if (!crossing(k)) continue;
      if (afterCrossing) crossed = true;
      else stopped = true;  // this path passed a crossing: not the one asked for
    }
    if (stopped) continue;
    for (BlockId s : bb.successors) {
      if (s == from || seen[s * 2 + crossed]) continue;
      seen[s * 2 + crossed] = 1;
      work.push_back({s, crossed});
    }
  }
  return false;
}

}  // namespace

bool ProtocolModel::pollMayHaveArrivals(InstId poll) const {
  auto [it, fresh] = pollMayHaveArrivals_.try_emplace(poll, false);
  if (fresh)
    for (InstId k = 0; k < static_cast<InstId>(fn_.instructions.size()) && !it->second; ++k)
      if (fn_.instructions[k].effect.kind == EffectKind::ReadModifyWrite && fn_.blockOf[k] >= 0 &&
          memory_.sameWord(k, poll))
        it->second = true;
  return it->second;
}

bool ProtocolModel::isPublishedByGroupBarrier(InstId store, InstId update) const {
  if (!fn_.values) return false;
  const std::optional<int64_t> c = pinnedThreadIndex(fn_, store);
  if (!c) return false;
  const BlockId storeBlock = fn_.blockOf[store], updateBlock = fn_.blockOf[update];
  // D: the point both blocks pass before the store and the update, in the
  // same trip (a counter barrier works only if every block crosses it as
  // often as the others: the blocks reach D having crossed it equally often).
  const BlockId d = commonDominator(fn_, storeBlock, updateBlock);
  if (d < 0) return false;
  constexpr int8_t kArrived = 2, kAcquired = 4, kUnreached = kAcquired + 1;
  for (const SpinLoop& spin : spins_) {
    for (InstId poll : spin.polls) {
      // A crossing needs an arrival on the polled word (X's walk reaches its
      // acquire only past one): without any, neither walk can find one.
      if (!pollMayHaveArrivals(poll)) continue;
      // X: from the store, release, arrive, poll, acquire before the barrier.
      std::vector<int8_t> fromStore(fn_.instructions.size(), kUnreached);
      walkGroupBarrierPhases(storeBlock, store + 1, poll, *c, 0, fromStore);
      // Y: from D, the poll and its acquire before the barrier.
      std::vector<int8_t> fromD(fn_.instructions.size(), kUnreached);
      walkGroupBarrierPhases(d, fn_.blocks[d].first, poll, *c, kArrived, fromD);
      auto crossing = [&](InstId k) { return fromStore[k] == kAcquired && fromD[k] == kAcquired; };
      // From D, no crossing comes before the store and one comes before
      // every update.
      if (!reachedWithin(fn_, d, store, /*afterCrossing=*/true, crossing) &&
          !reachedWithin(fn_, d, update, /*afterCrossing=*/false, crossing))
        return true;
    }
  }
  return false;
}

}  // namespace fenceline::model
