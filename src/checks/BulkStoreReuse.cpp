// bulk-store-reuse: a bulk or TMA store out of shared memory
// (cp.async.bulk.global.shared::cta, cp.async.bulk.tensor.*.global.shared::cta,
// cp.reduce.async.bulk[.tensor] into global memory) reads its source
// asynchronously, until `cp.async.bulk.wait_group.read N` (or `wait_group N`)
// covers its committed bulk async-group. Overwriting the source before that
// (generic stores, a TMA load into it) lets the store send the new data; the
// CTA exiting before it ends the shared memory under the copy.
//
// The issuing thread's paths are walked from the store (model/BulkGroups.h).
// While the store is unsettled: an overlapping write on the issuer's own path
// is reported; at a bar.sync the other threads are released, so overlapping
// writes reachable from that barrier (up to the next one) are reported too;
// reaching the end of the kernel is reported at the store.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "checks/ProxyCommon.h"
#include "model/BulkGroups.h"
#include "model/Paths.h"
#include "model/ThreadRoles.h"
#include "model/Memory.h"
#include "model/ThreadRoles.h"

namespace fenceline::checks {

namespace {

using model::EffectKind;
using model::FunctionModel;
using model::InstId;
using model::Space;


// A bulk copy that reads shared memory and completes through a bulk
// async-group: its destination is global memory (or a tensor map).
bool isBulkStore(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return e.kind == EffectKind::AsyncCopy && e.proxy == model::Proxy::Async && e.source >= 0 &&
         model::isSharedSpace(e.sourceSpace) && (e.destinationSpace == Space::Global || e.destinationSpace == Space::Tensor);
}

bool overwritesShared(const FunctionModel& fn, InstId i) {
  return proxy::isGenericSharedWrite(fn, i) || proxy::isAsyncSharedWrite(fn, i);
}

struct Reuse {
  InstId store = -1;
  InstId write = -1;    // the overwrite, or -1 for the end of the kernel
  InstId barrier = -1;  // the bar.sync that released the writer, if another thread writes
  // The wait that settles the store where the fix goes: wait_group.read `groups` (the fewest
  // groups committed after the store's own on a path that reaches it), after a commit_group when
  // the store's group may still be open there.
  int groups = -1;
  bool commit = false;
  // Issue 30, shape 7 (cuDNN frontend #1049): the write is made by threads other than the
  // issuer, on a path from the store that passes no synchronization at all; whatever the issuer
  // waits for, nothing holds them back. `settled`: every path of the issuer from the store out
  // of its election passes a wait covering the store (a barrier after the election fixes it).
  bool unsynchronized = false;
  bool settled = false;
  // The issuer's own next write (barrier < 0) is one that other threads make too, every thread of
  // the CTA reaching it, and no synchronization lies between the store and it.
  bool othersWrite = false;
};

size_t elementBytes(std::string_view type) {
  if (type.size() < 3) return 0;
  int bits = 0;
  for (char c : type.substr(2)) {
    if (c < '0' || c > '9') return 0;
    bits = bits * 10 + (c - '0');
  }
  return static_cast<size_t>(bits / 8);
}

// How many buffers of the store's extent the kernel cycles through (a ring
// of stage buffers, stage[r % D]; 1 for a single buffer). Stage indices
// are loop-variant or peeled into constants, which the value analysis
// cannot follow from round to round, so the depth comes from the layout:
// the size of the source's shared object when it is a sized array; for
// dynamic shared memory (one extern array carved into buffers, CUTLASS's
// epilogue smem_D[StagesD]) or an address the value analysis cannot trace
// to its object, the depth the kernel itself declares with its
// waits: wait_group.read N keeps N stores in flight, so it cycles through
// at least N + 1 buffers. In a D-deep ring the buffer a round rewrites was
// stored D - 1 groups before: a rewrite reached with fewer groups committed
// since this store writes another buffer of the ring.
int64_t ringDepth(const FunctionModel& fn, InstId store, int64_t extent) {
  // The source's memory object (model/Memory.h): a sized shared symbol, or
  // the dynamic shared buffer / unknown.
  const ptx::Variable* var = nullptr;
  if (fn.memory && fn.function) {
    const model::MemoryObject object = fn.memory->copySource(store).object;
    auto find = [&](const std::vector<ptx::Variable>& vars) -> const ptx::Variable* {
      for (const auto& candidate : vars)
        if (candidate.name == object.name) return &candidate;
      return nullptr;
    };
    if (object.kind == model::MemoryObject::Kind::SharedSymbol) {
      var = find(fn.function->locals);
      if (!var && fn.module) var = find(fn.module->globals);
    }
  }
  if (var && var->arraySize > 0 && !var->isExtern) {
    const int64_t bytes = var->arraySize * static_cast<int64_t>(elementBytes(var->type));
    return extent > 0 && bytes >= 2 * extent ? bytes / extent : 1;
  }
  int deepest = 0;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i)
    if (fn.instructions[i].block >= 0 && model::isBulkWait(fn, i)) deepest = std::max(deepest, model::bulkWaitDepth(fn, i));
  return 1 + deepest;
}

// Some path from the store reaches a wait_group[.read] 0 (the kernel drains
// its stores before it ends). The paths that skip it are then taken to be
// those of threads that stored nothing (CUTLASS guards its store tail with a
// flag the value analysis cannot relate to the stores).
// Which code can still reach a drain (a bulk wait of depth 0), found once
// per function: a forward walk per store to the drain at the kernel's end
// grew with stores x instructions (issue 33).
class DrainReach {
 public:
  explicit DrainReach(const FunctionModel& fn) : fn_(fn), lastDrain_(fn.blocks.size(), -1), reaches_(fn.blocks.size(), 0) {
    std::vector<model::BlockId> work;
    // A drain counts when it is a final one: some exit of the kernel follows
    // it with no bulk store between. A wait at the top of a store loop (it
    // covers the back edge) is followed by the next round's store on every
    // path out; an exit that leaves the loop after the store is not drained
    // by it (issue 30, shape 7).
    for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
      const model::BlockId b = fn.instructions[i].block;
      if (b < 0 || !model::isBulkWait(fn, i) || model::bulkWaitDepth(fn, i) != 0) continue;
      if (!exitFollowsWithoutStore(i)) continue;
      lastDrain_[b] = std::max(lastDrain_[b], i);
      if (!reaches_[b]) {
        reaches_[b] = 1;
        work.push_back(b);
      }
    }
    // Blocks from whose start a drain is reachable: the drains' blocks and,
    // backwards, every predecessor of such a block.
    while (!work.empty()) {
      model::poll();
      const model::BlockId b = work.back();
      work.pop_back();
      for (model::BlockId p : fn.blocks[b].predecessors)
        if (!reaches_[p]) {
          reaches_[p] = 1;
          work.push_back(p);
        }
    }
  }
  // Some exit follows `drain` on the draining thread's path with no bulk
  // store between. The path follows the thread's own election: at a branch
  // into a block of the drain's elected thread set (`if (threadIdx.x == 0)`
  // around the next store) from a wider block, the thread takes that side.
  bool exitFollowsWithoutStore(InstId drain) const {
    const model::ThreadSet self = fn_.roles ? fn_.roles->instructionSet(drain) : model::ThreadSet::All;
    const bool elected = self == model::ThreadSet::OneLane || self == model::ThreadSet::OneThread ||
                         self == model::ThreadSet::OneBlockThread;
    std::vector<char> seen(fn_.blocks.size(), 0);
    std::vector<std::pair<model::BlockId, InstId>> work{{fn_.instructions[drain].block, drain + 1}};
    while (!work.empty()) {
      model::poll();
      auto [b, from] = work.back();
      work.pop_back();
      bool stopped = false;
      for (InstId j = std::max(fn_.blocks[b].first, from); j < fn_.blocks[b].last; ++j) {
        if (isBulkStore(fn_, j)) {
          stopped = true;
          break;
        }
        if (fn_.instructions[j].effect.kind == EffectKind::Exit) return true;
      }
      if (stopped) continue;
      std::vector<model::BlockId> next = fn_.blocks[b].successors;
      if (elected && next.size() == 2 && fn_.roles->blockSet(b) != self)
        for (model::BlockId s : fn_.blocks[b].successors)
          if (s >= 0 && fn_.roles->blockSet(s) == self) next = {s};
      for (model::BlockId s : next)
        if (s >= 0 && !seen[s]) {
          seen[s] = 1;
          work.push_back({s, -1});
        }
    }
    return false;
  }
  // A final drain is reachable from `store` (exclusive): later in its block,
  // or from the start of a successor (its own block again, around a loop).
  bool after(InstId store) const {
    const model::BlockId b = fn_.instructions[store].block;
    if (lastDrain_[b] > store) return true;
    for (model::BlockId s : fn_.blocks[b].successors)
      if (reaches_[s]) return true;
    return false;
  }

 private:
  const FunctionModel& fn_;
  std::vector<InstId> lastDrain_;  // per block: its last drain, or -1
  std::vector<char> reaches_;      // per block: a drain is reachable from its start
};

// Every unsettled reuse of one store's source (at most one per overwrite).
std::vector<Reuse> reusesOf(const FunctionModel& fn, const DrainReach& drainReach, InstId store) {
  const int source = fn.instructions[store].effect.source;
  const int64_t extent = proxy::copyExtent(fn, store, source);
  const int64_t ring = ringDepth(fn, store, extent);
  const bool drains = drainReach.after(store);
  auto overlaps = [&](InstId w) { return overwritesShared(fn, w) && proxy::mayOverlap(fn, w, store, source, extent); };
  // The rewrite may hit this store's own buffer: in the same round (group
  // still open) or ring - 1 groups later.
  auto sameBuffer = [&](const model::Pending& p) { return p.open || p.deepest >= ring - 1; };
  // Or whatever the ring's depth: a rewrite that the store dominates and whose
  // address is the store's source address itself (the same value: the
  // prefetch into stage[s] right after storing stage[s], DeepEP #657). A
  // rewrite reached only around the loop (the next round's refill at the top)
  // is not dominated by the store: its equal-looking address is the next
  // round's stage.
  const model::BlockId storeBlock = fn.instructions[store].block;
  auto sameAddress = [&](InstId w) {
    const model::BlockId b = fn.instructions[w].block;
    if (b == storeBlock ? w < store : !fn.dominates(storeBlock, b)) return false;
    const auto& e = fn.instructions[w].effect;
    const int operand = e.kind == EffectKind::AsyncCopy ? e.destination : e.address;
    if (!fn.memory || operand < 0 || source < 0) return false;
    return fn.memory->alias(w, operand, store, source) == model::AliasResult::Must;
  };
  std::vector<Reuse> found;
  std::map<InstId, size_t> reported;
  auto add = [&](InstId write, InstId barrier, const model::Pending& p) {
    const int groups = p.open ? 0 : std::max(p.deepest, 0);
    auto [at, fresh] = reported.try_emplace(write, found.size());
    if (fresh) {
      found.push_back({store, write, barrier, groups, p.open});
      return;
    }
    Reuse& r = found[at->second];
    r.groups = std::min(r.groups, groups);
    r.commit = r.commit || p.open;
  };
  model::walkWhilePending(fn, store, model::BulkWait::Read, [&](InstId i, const model::Pending& p) {
    const auto kind = fn.instructions[i].effect.kind;
    if (i != store && (sameBuffer(p) || sameAddress(i)) && overlaps(i)) add(i, -1, p);
    if (kind == EffectKind::Exit) {
      if (!drains) add(-1, -1, p);
      return false;
    }
    if (kind == EffectKind::CtaBarrier && sameBuffer(p)) {
      // The other threads leave this barrier while the copy still reads:
      // their writes up to their next barrier overlap it.
      auto isBarrier = [&](InstId j) { return fn.instructions[j].effect.kind == EffectKind::CtaBarrier; };
      for (InstId w : model::findAllReachable(fn, i, overlaps, isBarrier)) add(w, i, p);
    }
    return true;
  });
  for (Reuse& r : found)
    if (r.commit) r.groups = 0;
  return found;
}

void addSameBytes(const FunctionModel& fn, const Reuse& r, report::Diagnostic& d);

// Writes by other threads that no synchronization orders after the store (issue 30, shape 7).
std::vector<Reuse> unsynchronizedReusesOf(const FunctionModel& fn, protocol::ThreadGuards& guards, InstId store) {
  std::vector<Reuse> found;
  if (!fn.roles || fn.roles->instructionSet(store) == model::ThreadSet::All) return found;
  const int source = fn.instructions[store].effect.source;
  const int64_t extent = proxy::copyExtent(fn, store, source);
  auto overlaps = [&](InstId w) { return overwritesShared(fn, w) && proxy::mayOverlap(fn, w, store, source, extent); };
  std::vector<InstId> writes;
  for (InstId w : model::handoff::unsynchronizedAfter(fn, store, overlaps))
    if (proxy::madeByOtherThreads(fn, guards, store, w)) writes.push_back(w);
  if (writes.empty()) return found;
  // The issuer's own paths: does the store stay pending up to the end of its election?
  const InstId election = electionBranch(fn, store);
  bool pendingOutside = election < 0;
  if (election >= 0) {
    // The block the election's branch enters on the way to the store: its
    // body is what it dominates.
    model::BlockId body = -1;
    for (model::BlockId next : fn.blocks[fn.blockOf[election]].successors)
      if (next >= 0 && fn.dominates(next, fn.blockOf[store])) body = next;
    model::walkWhilePending(fn, store, model::BulkWait::Read, [&](InstId i, const model::Pending&) {
      const model::BlockId b = fn.instructions[i].block;
      if (body < 0 || (b >= 0 && !fn.dominates(body, b))) pendingOutside = true;  // past the if statement
      return !pendingOutside;
    });
  }
  for (InstId w : writes) {
    Reuse r;
    r.store = store;
    r.write = w;
    r.unsynchronized = true;
    r.settled = !pendingOutside;
    found.push_back(r);
  }
  return found;
}

report::Diagnostic renderUnsynchronized(const FunctionModel& fn, const Reuse& r) {
  const std::string store = proxy::describe(fn, r.store);
  auto d = protocol::makeDiagnostic(
      fn, r.write, "bulk-store-reuse",
      fmt::format("shared memory is overwritten ({}) by threads other than the one that issued the {}, with no "
                  "barrier between: the issuing thread's cp.async.bulk.wait_group.read waits for its own bulk "
                  "async-groups only and does not hold the other threads back",
                  proxy::describe(fn, r.write), store),
      fmt::format("after the issuing thread's cp.async.bulk.wait_group.read that covers the {}, a barrier "
                  "(__syncthreads() or a named barrier) that the writers and the issuer execute, before the buffer "
                  "is written again",
                  store));
  protocol::addNote(d, fn, r.store, "the bulk store that reads this shared memory asynchronously, issued by fewer "
                                    "threads than write it");
  const InstId election = electionBranch(fn, r.store);
  if (election < 0)
    d.fixRequest = noMachineFix("the statement that elects the issuing thread was not found; insert the barrier "
                                "after the issuer's wait by hand");
  else if (!r.settled)
    d.fixRequest = noMachineFix("the issuing thread does not wait for the store before it leaves its election; add "
                                "cp.async.bulk.wait_group.read there, then a barrier");
  else
    d.fixRequest = barrierAt(fn, election, /*after=*/true);
  d.evidence.push_back(report::link(fn, report::LinkKind::AsyncOperation, r.store, store));
  d.evidence.push_back(report::link(fn, report::LinkKind::HandOff, -1, "no-synchronization",
                                    "threads other than the issuing one reach this write from the store with no "
                                    "barrier, mbarrier or warp synchronization between"));
  d.evidence.push_back(report::link(fn, report::LinkKind::Access, r.write, "other-threads",
                                    "threads other than the issuing one make this write (the store is under a branch "
                                    "on the thread index that the write is not)"));
  addSameBytes(fn, r, d);
  return d;
}

report::Diagnostic render(const FunctionModel& fn, const Reuse& r) {
  const std::string store = proxy::describe(fn, r.store);
  if (r.write < 0) {
    auto d = protocol::makeDiagnostic(
        fn, r.store, "bulk-store-reuse",
        fmt::format("the kernel can end while this {} is still reading its shared-memory source; no "
                    "cp.async.bulk.wait_group.read covers its bulk async-group",
                    store),
        "before the kernel ends, the issuing thread executes cp.async.bulk.commit_group and then "
        "cp.async.bulk.wait_group.read 0 (CUTLASS tma_store_wait<0>(), "
        "cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>()))");
    // The fix: drain once before the end, after the loop that issues the stores when there is one.
    const int32_t loop = fn.loopOf[fn.blockOf[r.store]];
    d.fixRequest = loop >= 0 ? insertAfterLoop(fn, r.store, report::FenceToInsert::BulkWaitRead, "")
                             : insertAfter(fn, r.store, report::FenceToInsert::BulkWaitRead);
    d.fixRequest.count = 0;
    d.fixRequest.commitFirst = r.commit;
    d.fixRequest.beforeHelperCall = true;
    d.evidence.push_back(report::link(fn, report::LinkKind::AsyncOperation, r.store, store));
    d.evidence.push_back(report::link(fn, report::LinkKind::HandOff, -1, "kernel-exit",
                                      "a path from the store reaches the end of the kernel with the store unsettled"));
    d.disputed = "whether a CTA that exits with a bulk store still reading its shared memory can have that memory "
                 "handed to a new CTA before the read completes is not documented (CUTLASS always drains first)";
    return d;
  }
  auto d = protocol::makeDiagnostic(
      fn, r.write, "bulk-store-reuse",
      fmt::format("shared memory is overwritten ({}) while the {} issued before may still be reading it; no "
                  "cp.async.bulk.wait_group.read covers the store's bulk async-group",
                  proxy::describe(fn, r.write), store),
      fmt::format("the thread that issued the {} commits it (cp.async.bulk.commit_group) and waits with "
                  "cp.async.bulk.wait_group.read N (N = groups allowed to stay in flight; CUTLASS "
                  "tma_store_wait<N>()) before the buffer is written again{}",
                  store, r.barrier >= 0 ? ", and before the barrier that lets the other threads write it" : ""));
  protocol::addNote(d, fn, r.store, "the bulk store that reads this shared memory asynchronously");
  // The fix: the wait with the ring's depth right before the overwrite (the issuer's own), or before
  // the barrier that lets the other threads write (every thread executes it there; a thread with
  // no bulk groups passes at once).
  d.fixRequest = insertBefore(fn, r.barrier >= 0 ? r.barrier : r.write, report::FenceToInsert::BulkWaitRead);
  d.fixRequest.count = r.groups;
  d.fixRequest.commitFirst = r.commit;
  // The issuer writes the buffer next, and so do other threads that nothing synchronizes with
  // it (issue 30, shape 7): the wait holds back the issuer only, a barrier after it the others.
  if (r.barrier < 0 && r.othersWrite) {
    d.fixRequest.barrierAfter = true;
    protocol::addNote(d, fn, r.write, "other threads make this write too, with no barrier after the issuing thread's "
                                      "wait: the fix waits, then synchronizes them (__syncthreads())");
  }
  if (r.barrier >= 0)
    protocol::addNote(d, fn, r.barrier, "the writers leave this barrier while the issuing thread has not waited");
  d.evidence.push_back(report::link(fn, report::LinkKind::AsyncOperation, r.store, store));
  d.evidence.push_back(r.barrier >= 0 ? report::link(fn, report::LinkKind::HandOff, r.barrier, "bar.sync")
                                      : report::link(fn, report::LinkKind::HandOff, -1, "program-order",
                                                     "the issuing thread itself writes the buffer next"));
  d.evidence.push_back(report::link(fn, report::LinkKind::Access, r.write,
                                    proxy::isAsyncSharedWrite(fn, r.write) ? "async-write" : "generic-write"));
  addSameBytes(fn, r, d);
  return d;
}

void addSameBytes(const FunctionModel& fn, const Reuse& r, report::Diagnostic& d) {
  const int source = fn.instructions[r.store].effect.source;
  const int address = fn.instructions[r.write].effect.kind == EffectKind::AsyncCopy
                          ? fn.instructions[r.write].effect.destination
                          : fn.instructions[r.write].effect.address;
  if (fn.memory && address >= 0) {
    const bool asyncWrite = fn.instructions[r.write].effect.kind == EffectKind::AsyncCopy;
    const model::MemoryLocation read = fn.memory->location(r.store, source, proxy::copyExtent(fn, r.store, source));
    model::AliasEvidence same = fn.memory->aliasEvidence(
        fn.memory->location(r.write, address, asyncWrite ? proxy::copyExtent(fn, r.write, address) : 0), read);
    // "same-buffer" says that two accesses of one array at offsets not
    // provably apart meet. A store whose extent is not in the PTX (a tensor
    // store reads the box its tensor map describes; a size held in a
    // register) and an overwrite that does not cover the store's first bytes
    // (meet() would have said so) meet only if the store reaches that far:
    // a ring's other stage (torchao's two-stage MXFP8 staging) is not
    // decided to be the store's bytes.
    if (same.how == "same-buffer" && (!read.bytes || read.bytes->end == std::numeric_limits<int64_t>::max())) {
      same.decided = false;
      same.how = "unknown-extent";
      same.detail = fmt::format("the store's extent is not in the PTX (a tensor store reads the box its tensor map "
                                "describes, or its size is a run-time value): whether it reaches the overwritten bytes "
                                "of {} is not decided",
                                read.object.toString());
    }
    d.evidence.push_back(report::link(fn, report::LinkKind::SameBytes, -1, same.how, same.detail, same.decided));
  } else {
    d.evidence.push_back(report::undecidedLink(fn, report::LinkKind::SameBytes, -1, "unknown-pointer",
                                               "the overwrite's address could not be analysed"));
  }
}

}  // namespace

void checkBulkStoreReuse(const model::FunctionModel& fn, Findings& out) {
  std::map<std::string, bool> reported;
  std::optional<DrainReach> drainReach;
  protocol::ThreadGuards guards(fn);
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0 || !isBulkStore(fn, i)) continue;
    if (!drainReach) drainReach.emplace(fn);
    const std::vector<Reuse> unsynchronized = unsynchronizedReusesOf(fn, guards, i);
    for (Reuse r : reusesOf(fn, *drainReach, i)) {
      const std::string key = protocol::siteKey(fn, r.write >= 0 ? r.write : r.store) + (r.write < 0 ? "#exit" : "");
      if (!reported.try_emplace(key, true).second) continue;
      if (r.write >= 0 && r.barrier < 0) {
        const ThreadsAt at = threadsAt(fn, r.write);
        r.othersWrite = at.uniform && !at.narrowed() &&
                        std::any_of(unsynchronized.begin(), unsynchronized.end(),
                                    [&](const Reuse& u) { return u.write == r.write; });
      }
      out.push_back(render(fn, r));
    }
    for (const Reuse& r : unsynchronized) {
      if (!reported.try_emplace(protocol::siteKey(fn, r.write), true).second) continue;
      out.push_back(renderUnsynchronized(fn, r));
    }
  }
}

}  // namespace fenceline::checks
