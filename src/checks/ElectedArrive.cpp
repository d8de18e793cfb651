// elected-arrive: threads of a warp (or of several warps) write shared or
// global memory with generic stores, then one elected thread (`lane == 0`,
// `elect.sync`, `threadIdx.x == k`) releases the data: an mbarrier arrive, a
// release store or a release atomic. The release orders the elected
// thread's own writes only; the other writers must first synchronize with
// it (`__syncwarp()` / bar.warp.sync in a warp, bar.sync or a named barrier
// across warps). Reported when some path from a write to the elected release
// passes none of those, and a consumer reads what was written: a read that
// may alias the write after a wait on the same mbarrier, or (for a release
// to global memory) after an acquire. The read-then-release direction (a
// consumer frees a stage after reading it) is proxy-war's.
#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "checks/ProxyCommon.h"
#include "model/GuardedRanges.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::checks {

namespace {

using model::EffectKind;
using model::FunctionModel;
using model::InstId;
using model::Space;
using model::ThreadSet;

bool isElected(ThreadSet s) {
  return s == ThreadSet::OneLane || s == ThreadSet::OneThread || s == ThreadSet::OneBlockThread;
}

// A set of threads that a branch on the thread index picks, of more than one
// thread: `if (threadIdx.x < nwarps)` (thread i releases for warp i; the
// thread roles call a range inside warp 0 "one warp"), `tid >= 32`, a
// data-dependent subset. Paired only with writes that threads outside it make.
bool isThreadIndexSubset(ThreadSet s) { return s == ThreadSet::Subset || s == ThreadSet::OneWarp; }

// Written by possibly more threads than the elected release covers.
bool widerThan(ThreadSet writer, ThreadSet releaser) {
  if (writer == ThreadSet::All || writer == ThreadSet::Subset || writer == ThreadSet::OneWarp) return true;
  // Lane 0 of every warp writes, one thread of the block releases.
  return writer == ThreadSet::OneLane && (releaser == ThreadSet::OneThread || releaser == ThreadSet::OneBlockThread);
}

bool isSharedOrGlobal(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  Space s = e.space;
  if (s == Space::Generic && fn.memory && e.address >= 0) s = fn.memory->space(i, e.address);
  return s == Space::SharedCta || s == Space::SharedCluster || s == Space::Global || s == Space::Generic ||
         s == Space::None;
}

bool isShared(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  Space s = e.space;
  if (s == Space::Generic && fn.memory && e.address >= 0) s = fn.memory->space(i, e.address);
  return s == Space::SharedCta || s == Space::SharedCluster;
}

// tcgen05.st: registers to tensor memory, data that a release hands to the
// thread that issues tcgen05.mma / ld on it (issue 30, shapes 3 and 6).
bool isTensorMemoryWrite(const FunctionModel& fn, InstId i) {
  return fn.instructions[i].effect.kind == EffectKind::Tcgen05Store;
}
bool isTensorMemoryRead(const FunctionModel& fn, InstId i) {
  const EffectKind k = fn.instructions[i].effect.kind;
  return k == EffectKind::Tcgen05Load || (k == EffectKind::Tcgen05 && fn.instructions[i].opcode() == "tcgen05" &&
                                          (fn.instructions[i].hasModifier("mma") || fn.instructions[i].hasModifier("cp")));
}

// The tensor-memory address of a tcgen05 operation: its [taddr] operand, or
// the first operand.
int tensorMemoryOperand(const FunctionModel& fn, InstId i) {
  const auto& ops = fn.instructions[i].operands;
  for (size_t k = 0; k < ops.size(); ++k)
    if (ops[k].kind == ptx::Operand::Kind::Address) return static_cast<int>(k);
  return ops.empty() ? -1 : 0;
}

// A tcgen05.st and a tcgen05.mma / ld address one tensor-memory allocation:
// their addresses are offsets from one value (the address read back from
// the allocation's slot).
model::AliasEvidence sameTensorMemory(const FunctionModel& fn, InstId write, InstId read) {
  model::AliasEvidence e;
  e.how = "unknown-allocation";
  e.detail = "the analysis cannot tell that the two tensor-memory addresses come from one allocation";
  const int ow = tensorMemoryOperand(fn, write), orr = tensorMemoryOperand(fn, read);
  if (!fn.values || ow < 0 || orr < 0) return e;
  const model::AbstractValue vw = fn.values->operandValue(write, ow), vr = fn.values->operandValue(read, orr);
  if (vw.known && vr.known && vw.baseKind == vr.baseKind && vw.base == vr.base) {
    e.result = model::AliasResult::May;
    e.decided = true;
    e.how = "same-allocation";
    e.detail = "both tensor-memory addresses are offsets from one allocation's address";
  }
  return e;
}

// A generic data store (weak: flags and atomics are not the data), or a tcgen05.st.
bool isDataWrite(const FunctionModel& fn, InstId i) {
  if (isTensorMemoryWrite(fn, i)) return true;
  const auto& e = fn.instructions[i].effect;
  if (e.kind != EffectKind::Store || e.proxy != model::Proxy::Generic || e.address < 0 || e.mbarrier >= 0) return false;
  if (e.semantics != model::Semantics::Weak && e.semantics != model::Semantics::None) return false;
  return isSharedOrGlobal(fn, i);
}

enum class ReleaseKind { Arrive, GlobalRelease };

std::optional<ReleaseKind> releaseKind(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  if (proxy::isHandOffArrive(fn, i)) return ReleaseKind::Arrive;
  if ((e.kind == EffectKind::Store || e.kind == EffectKind::ReadModifyWrite) && e.mbarrier < 0 &&
      model::hasReleaseSemantics(e))
    return ReleaseKind::GlobalRelease;
  return std::nullopt;
}

bool isThreadSync(const FunctionModel& fn, InstId i) {
  auto k = fn.instructions[i].effect.kind;
  return k == EffectKind::WarpSync || k == EffectKind::CtaBarrier || k == EffectKind::CtaBarrierArrive;
}

// Does a consumer read memory `write` may have written, after a wait the
// release is for? Generic loads and async-proxy reads of shared memory.
bool mayRead(const FunctionModel& fn, InstId read, InstId write) {
  if (isTensorMemoryWrite(fn, write)) return isTensorMemoryRead(fn, read);
  const auto& r = fn.instructions[read].effect;
  const int w = fn.instructions[write].effect.address;
  if (r.kind == EffectKind::Load && r.address >= 0) {
    // Global data: the partner model's identity (pointers read from one peer
    // table may point into one buffer: another rank wrote through its entry).
    if (!isShared(fn, write) && !isShared(fn, read)) return model::protocolOf(fn).alias(write, read) != model::AliasResult::No;
    return fn.memory->alias(read, r.address, write, w) != model::AliasResult::No;
  }
  if (proxy::isAsyncSharedRead(fn, read))
    return proxy::mayOverlap(fn, write, read, r.source, proxy::copyExtent(fn, read, r.source));
  return false;
}

// The reads a consumer makes after a wait that the release is for: after an
// mbarrier wait on the same barrier (an arrive), after an acquire (a release
// to global memory). Generic loads and async-proxy reads of shared memory.
std::vector<InstId> consumerReads(const FunctionModel& fn, InstId release, ReleaseKind kind) {
  auto isWait = [&](InstId i) {
    const auto& e = fn.instructions[i].effect;
    if (kind == ReleaseKind::Arrive) return e.kind == EffectKind::MbarrierWait && proxy::sameBarrier(fn, release, i);
    if (model::isAcquireFence(fn, i)) return true;
    return (e.kind == EffectKind::Load || e.kind == EffectKind::ReadModifyWrite) && model::hasAcquireSemantics(e);
  };
  // ld.global.nc reads memory the kernel treats as read-only (const
  // __restrict__ inputs): never the data a release publishes.
  auto isRead = [&](InstId i) {
    const auto& e = fn.instructions[i].effect;
    if (e.kind == EffectKind::Load && e.address >= 0) return !fn.instructions[i].hasModifier("nc");
    return proxy::isAsyncSharedRead(fn, i) || isTensorMemoryRead(fn, i);
  };
  std::vector<char> seen(fn.instructions.size(), 0);
  std::vector<InstId> reads;
  for (InstId wait = 0; wait < static_cast<InstId>(fn.instructions.size()); ++wait) {
    if (fn.instructions[wait].block < 0 || !isWait(wait)) continue;
    auto isWaitAgain = [&](InstId i) { return i != wait && isWait(i); };
    for (InstId r : model::findAllReachable(fn, wait, isRead, isWaitAgain))
      if (!seen[r]) {
        seen[r] = 1;
        reads.push_back(r);
      }
  }
  return reads;
}

struct Finding {
  InstId release = -1;
  InstId write = -1;
  // Only a __syncwarp() is between them: it gathers the releasing thread's
  // own warp, and the write runs on other warps too (issue 30, shape 3).
  bool pastWarpSync = false;
  // The writers' own arrive on another barrier (writersOwnArrive), or -1: the
  // consumer's reads behind a wait on that barrier are not this release's.
  InstId ownArrive = -1;
};

// A wait on the barrier of `ownArrive` (the same word for every thread).
bool waitsOnBarrierOf(const FunctionModel& fn, InstId ownArrive, InstId i) {
  const auto& e = fn.instructions[i].effect;
  const auto& own = fn.instructions[ownArrive].effect;
  return e.kind == EffectKind::MbarrierWait && e.address >= 0 && own.address >= 0 &&
         fn.memory->alias(ownArrive, own.address, i, e.address) == model::AliasResult::Must;
}

// The evidence that a consumer reads what `write` wrote after a wait that
// the release is for: the wait (the same barrier for an arrive, an acquire of
// the same word for a release to global memory) and the read, decided when
// both the barrier or flag and the bytes are.
std::vector<report::EvidenceLink> consumerEvidence(const FunctionModel& fn, InstId release, ReleaseKind kind,
                                                   InstId write, InstId ownArrive) {
  using report::LinkKind;
  const auto& rel = fn.instructions[release].effect;
  std::vector<report::EvidenceLink> best;
  bool bestDecided = false;
  for (InstId wait = 0; wait < static_cast<InstId>(fn.instructions.size()) && !bestDecided; ++wait) {
    const auto& e = fn.instructions[wait].effect;
    if (fn.instructions[wait].block < 0) continue;
    model::AliasEvidence same;
    if (kind == ReleaseKind::Arrive) {
      if (e.kind != EffectKind::MbarrierWait || !proxy::sameBarrier(fn, release, wait)) continue;
      same = fn.memory->aliasEvidence(release, rel.address, 0, wait, e.address, 0, /*barriers=*/true);
    } else {
      if (!((e.kind == EffectKind::Load || e.kind == EffectKind::ReadModifyWrite) && model::hasAcquireSemantics(e)) ||
          e.address < 0)
        continue;
      same = model::protocolOf(fn).aliasEvidence(release, wait);
      if (same.result == model::AliasResult::No) continue;
    }
    // Another wait of the same kind (for a flag: another acquire, not any load).
    auto isWaitAgain = [&](InstId i) {
      const auto& o = fn.instructions[i].effect;
      if (ownArrive >= 0 && waitsOnBarrierOf(fn, ownArrive, i)) return true;
      if (i == wait || o.kind != e.kind || i < wait) return false;
      return kind == ReleaseKind::Arrive || model::hasAcquireSemantics(o);
    };
    auto reads = [&](InstId i) {
      const auto& r = fn.instructions[i].effect;
      if (isTensorMemoryWrite(fn, write)) return isTensorMemoryRead(fn, i);
      // The poll itself, reached again around its spin loop, reads the flag, not the data.
      if (i == wait || (kind == ReleaseKind::GlobalRelease && model::hasAcquireSemantics(r))) return false;
      if (r.kind == EffectKind::Load && r.address >= 0) return !fn.instructions[i].hasModifier("nc") && mayRead(fn, i, write);
      return proxy::isAsyncSharedRead(fn, i) && mayRead(fn, i, write);
    };
    auto bytesOf = [&](InstId read) {
      const auto& r = fn.instructions[read].effect;
      model::AliasEvidence bytes;
      if (isTensorMemoryWrite(fn, write)) return sameTensorMemory(fn, write, read);
      if (r.kind == EffectKind::Load && !isShared(fn, write) && !isShared(fn, read))
        return model::protocolOf(fn).aliasEvidence(write, read);
      if (r.kind == EffectKind::Load)
        return fn.memory->aliasEvidence(read, r.address, 0, write, fn.instructions[write].effect.address, 0);
      const int64_t extent = proxy::copyExtent(fn, read, r.source);
      if (!proxy::readsThroughDescriptor(fn, read))
        return fn.memory->aliasEvidence(fn.memory->location(write, fn.instructions[write].effect.address),
                                        fn.memory->location(read, r.source, extent));
      bytes.decided = proxy::overlapOf(fn, write, read, r.source, extent) == proxy::Overlap::Yes;
      bytes.how = bytes.decided ? "decoded-descriptor" : "undecoded-descriptor";
      return bytes;
    };
    // The nearest read, or a later one whose bytes are decidedly the write's.
    InstId read = model::findReachable(fn, wait, [&](InstId i) { return reads(i) && bytesOf(i).decided; }, isWaitAgain);
    if (read < 0) read = model::findReachable(fn, wait, reads, isWaitAgain);
    if (read < 0) continue;
    const model::AliasEvidence bytes = bytesOf(read);
    std::vector<report::EvidenceLink> links;
    links.push_back(report::link(fn, LinkKind::Poll, wait, same.decided ? (kind == ReleaseKind::Arrive ? "same-barrier" : "same-flag") : "wait-" + same.how,
                                 same.detail, same.decided));
    links.push_back(report::link(fn, LinkKind::GuardedRead, read, bytes.how, bytes.detail, bytes.decided));
    const bool decided = same.decided && bytes.decided;
    if (best.empty() || decided) {
      best = std::move(links);
      bestDecided = decided;
    }
  }
  if (best.empty())
    best.push_back(report::undecidedLink(fn, LinkKind::GuardedRead, -1, "no-reader",
                                         "no read after a wait for this release reads what was written"));
  return best;
}

// The fix: the writers synchronize with the elected thread before the election (the statement
// that elects it): __syncwarp() for one lane of a warp; __syncthreads() where every thread of the
// CTA gets there, a named barrier (bar.sync id, count) where the threads that get there are a
// range of whole warps that the guards name (tid < 128); none where a branch on data decides who
// gets there (a barrier there would hang or be undefined).
report::FixRequest syncFix(const FunctionModel& fn, const Finding& f, ThreadSet releaser) {
  // A thread-index subset (`if (threadIdx.x < 4)`): the branch that elects it.
  InstId anchor = isThreadIndexSubset(releaser) ? electionBranch(fn, f.release) : -1;
  if (anchor < 0) anchor = outsideElection(fn, f.release, f.write);
  if (anchor < 0)
    return noMachineFix("the statement that elects the releasing thread was not found; insert the "
                        "synchronization before it by hand");
  const ThreadsAt at = threadsAt(fn, anchor);
  if (!at.uniform)
    return noMachineFix(fmt::format("a __syncwarp()/__syncthreads() before the election would not be reached by "
                                    "every thread it waits for: {}; synchronize the writers where they all are",
                                    at.why));
  report::FixRequest request;
  const bool oneWarp = at.range.first % 32 == 0 && at.range.second == at.range.first + 31;
  if (releaser == ThreadSet::OneLane || oneWarp) {
    request = insertBefore(fn, anchor, report::FenceToInsert::WarpSync);
  } else if (!at.narrowed()) {
    request = insertBefore(fn, anchor, report::FenceToInsert::CtaSync);
  } else {
    const int64_t threads = at.range.second - at.range.first + 1;
    auto id = freeBarrierId(fn);
    if (at.range.first % 32 != 0 || threads % 32 != 0 || threads <= 0 || !id)
      return noMachineFix(fmt::format("the threads that get to the election are threads {}..{}, not whole warps, or "
                                      "no named barrier id is free; synchronize them by hand",
                                      at.range.first, at.range.second));
    request = insertBefore(fn, anchor, report::FenceToInsert::NamedBarrier);
    request.count = static_cast<int>(threads);
    request.barrierId = *id;
  }
  request.after.push_back(report::locationOf(fn, f.write));
  return request;
}

report::Diagnostic render(const FunctionModel& fn, const Finding& f, ReleaseKind kind) {
  const ThreadSet set = fn.roles->instructionSet(f.release);
  const char* who = set == ThreadSet::OneLane ? "one lane of the warp"
                    : isThreadIndexSubset(set) ? "a subset of the threads (a branch on the thread index)"
                                               : "one thread";
  auto d = protocol::makeDiagnostic(
      fn, f.release, "elected-arrive",
      f.pastWarpSync
          ? fmt::format("{} executed by {} releases data that other warps wrote, with only a __syncwarp() between "
                        "their writes and it: it gathers the releasing thread's own warp; the release orders only "
                        "the releasing thread's own writes",
                        kind == ReleaseKind::Arrive ? "this mbarrier arrive" : "this release", who)
          : fmt::format("{} executed by {} releases data other threads wrote, with no __syncwarp()/bar.sync between "
                        "their writes and it; the release orders only the releasing thread's own writes",
                        kind == ReleaseKind::Arrive ? "this mbarrier arrive" : "this release", who),
      set == ThreadSet::OneLane
          ? "insert __syncwarp() (bar.warp.sync) after the writes, executed by every writing lane, before the elected "
            "release; or let every writing thread arrive (arrival count = writers)"
          : "insert __syncthreads() or a named barrier (bar.sync id, count) among the writers after their writes and "
            "before the elected release; or let every writing thread arrive");
  d.fixRequest = syncFix(fn, f, set);
  protocol::addNote(d, fn, f.write,
                    f.pastWarpSync ? "written by more warps than the releasing thread's; only a __syncwarp() is "
                                     "between this write and the release"
                                   : "written by more threads than the one that releases; no warp or block "
                                     "synchronization orders this write before the release");
  d.evidence.push_back(report::link(fn, report::LinkKind::DataWrite, f.write,
                                    f.pastWarpSync ? "other-warps" : "other-threads",
                                    f.pastWarpSync ? "threads of other warps than the releasing thread's write it"
                                                   : "threads other than the releasing one write it"));
  d.evidence.push_back(report::link(fn, report::LinkKind::Signal, f.release, "elected-release"));
  for (auto& link : consumerEvidence(fn, f.release, kind, f.write, f.ownArrive)) d.evidence.push_back(std::move(link));
  return d;
}

// The writes (isWrite) from which some CFG path reaches `release` without
// passing a thread sync strictly between the two: what
// `reachable(write, release) && !everyPathPasses(write, release, isThreadSync)`
// answers for each write, found by one backward walk from the release that
// stops at syncs and continues past writes. Sorted by InstId.
std::vector<InstId> unsyncedWritesBefore(const FunctionModel& fn, InstId release, const std::vector<char>& isWrite,
                                         bool warpSyncStops = true) {
  std::vector<InstId> found;
  std::vector<char> seen(fn.blocks.size(), 0);
  std::vector<model::BlockId> work;
  // Scans block `b` backwards from `from` (exclusive); true when it reached
  // the block's first instruction without a sync (the walk goes on to the
  // predecessors).
  auto scan = [&](model::BlockId b, InstId from) {
    for (InstId i = from - 1; i >= fn.blocks[b].first; --i) {
      if (isThreadSync(fn, i) && (warpSyncStops || fn.instructions[i].effect.kind != EffectKind::WarpSync)) return false;
      if (isWrite[i]) found.push_back(i);
    }
    return true;
  };
  const model::BlockId start = fn.instructions[release].block;
  if (scan(start, release))
    for (model::BlockId p : fn.blocks[start].predecessors) work.push_back(p);
  while (!work.empty()) {
    model::poll();
    const model::BlockId b = work.back();
    work.pop_back();
    if (seen[b]) continue;
    seen[b] = 1;
    if (scan(b, fn.blocks[b].last))
      for (model::BlockId p : fn.blocks[b].predecessors) work.push_back(p);
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

// The write's own threads release it on another barrier: on every path from
// `write` to the elected `release`, an mbarrier arrive made by the writing
// threads themselves (not an election: every thread the write's guards let
// through) on a barrier other than the release's. Returns that arrive, or -1.
// (cuDNN's sm100 attention kernels: the softmax warps write the output tile,
// fence, and every thread arrives on the tile's barrier; then one lane per
// warp gives back the scheduler's response slot.)
InstId writersOwnArrive(const FunctionModel& fn, protocol::ThreadGuards& guards, InstId write, InstId release) {
  auto isOwnArrive = [&](InstId a) {
    if (a == release || !proxy::isHandOffArrive(fn, a) || proxy::sameBarrier(fn, a, release)) return false;
    const ThreadSet set = fn.roles->instructionSet(a);
    return !isElected(set) && !(isThreadIndexSubset(set) && guards.apart(a, write));
  };
  constexpr size_t kNearest = 4;
  for (InstId a : model::findAllReachable(fn, write, isOwnArrive, [&](InstId i) { return i == release; }, kNearest))
    if (model::everyPathPasses(fn, write, release, [&](InstId i) { return i == a; })) return a;
  return -1;
}

// The reads that a wait on `release`'s barrier guards (up to the next such
// wait) and that some path from that wait reaches without a wait on
// `ownArrive`'s barrier: a read behind such a wait is ordered after the
// writers' own arrive, whatever the elected release hands over.
std::vector<InstId> readsNotBehind(const FunctionModel& fn, InstId release, InstId ownArrive) {
  auto waitsOnOwn = [&](InstId i) { return waitsOnBarrierOf(fn, ownArrive, i); };
  auto isWait = [&](InstId i) {
    return fn.instructions[i].effect.kind == EffectKind::MbarrierWait && proxy::sameBarrier(fn, release, i);
  };
  auto isRead = [&](InstId i) {
    const auto& e = fn.instructions[i].effect;
    if (e.kind == EffectKind::Load && e.address >= 0) return !fn.instructions[i].hasModifier("nc");
    return proxy::isAsyncSharedRead(fn, i) || isTensorMemoryRead(fn, i);
  };
  std::vector<InstId> reads;
  for (InstId wait = 0; wait < static_cast<InstId>(fn.instructions.size()); ++wait) {
    if (fn.instructions[wait].block < 0 || !isWait(wait)) continue;
    auto stop = [&](InstId i) { return (i != wait && isWait(i)) || waitsOnOwn(i); };
    for (InstId r : model::findAllReachable(fn, wait, isRead, stop)) reads.push_back(r);
  }
  std::sort(reads.begin(), reads.end());
  reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  return reads;
}

}  // namespace

void checkElectedArrive(const model::FunctionModel& fn, Findings& out) {
  if (!fn.roles || !fn.memory) return;
  std::vector<InstId> writes, releases;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (isDataWrite(fn, i)) writes.push_back(i);
    else if (releaseKind(fn, i) && (isElected(fn.roles->instructionSet(i)) || isThreadIndexSubset(fn.roles->instructionSet(i))))
      releases.push_back(i);
  }
  if (writes.empty() || releases.empty()) return;
  std::map<std::string, bool> reported;
  // The thread set of each write, asked once (not once per release).
  std::vector<ThreadSet> writerSet(fn.instructions.size(), ThreadSet::All);
  std::vector<char> isWrite(fn.instructions.size(), 0);
  for (InstId write : writes) {
    writerSet[write] = fn.roles->instructionSet(write);
    isWrite[write] = 1;
  }
  // The %tid.x range each instruction runs for, narrowed by the branches that
  // guard it (model/GuardedRanges.h): a write and a release whose ranges do
  // not meet are made by different threads, on different roles of a
  // warp-specialized kernel; the CFG path between them (one role's code falls
  // through to the next role's test, or around a persistent loop) is taken
  // by no thread, and the release does not hand off that write.
  constexpr std::pair<int64_t, int64_t> kAnyThread{0, int64_t(1) << 20};
  // The same for the other dimensions of the thread index: a kernel launched
  // with 2-D blocks may choose its roles by threadIdx.y (cuBLAS's
  // symv_tma_ws_kernel: blocks of 32 x 10, warp y == 0 the producer, y == 1
  // the reducer, y >= 2 the compute warps). A thread's (x, y, z) is fixed, so
  // two instructions whose ranges do not meet in any one dimension are never
  // run by one thread.
  std::unordered_map<InstId, std::pair<int64_t, int64_t>> tidXRange, tidYRange, tidZRange;
  auto rangeIn = [&](std::unordered_map<InstId, std::pair<int64_t, int64_t>>& memo, std::string_view name,
                     InstId i) {
    auto [it, fresh] = memo.try_emplace(i);
    if (fresh) it->second = model::guardedRange(fn, i, name, kAnyThread);
    return it->second;
  };
  auto rangeOf = [&](InstId i) { return rangeIn(tidXRange, "%tid.x", i); };
  auto apart = [](std::pair<int64_t, int64_t> a, std::pair<int64_t, int64_t> b) {
    return a.second < b.first || b.second < a.first;
  };
  auto otherRoles = [&](InstId write, InstId release) {
    return apart(rangeOf(write), rangeOf(release)) ||
           apart(rangeIn(tidYRange, "%tid.y", write), rangeIn(tidYRange, "%tid.y", release)) ||
           apart(rangeIn(tidZRange, "%tid.z", write), rangeIn(tidZRange, "%tid.z", release));
  };
  protocol::ThreadGuards guards(fn);
  for (InstId release : releases) {
    const ThreadSet releaser = fn.roles->instructionSet(release);
    const ReleaseKind kind = *releaseKind(fn, release);
    const std::pair<int64_t, int64_t> releasers = rangeOf(release);
    std::optional<std::vector<InstId>> reads;
    std::unordered_map<InstId, std::vector<InstId>> readsNotBehindOwn;  // by the writers' own arrive
    // More warps than one write it: the writers' thread-index range spans
    // several warps, or every thread writes.
    auto otherWarpsWrite = [&](InstId write) {
      const std::pair<int64_t, int64_t> writers = rangeOf(write);
      if (writers.second < kAnyThread.second) return writers.first / 32 != writers.second / 32;
      // Every thread of the blocks that get there (a branch on the block index only).
      return writerSet[write] == ThreadSet::All ||
             (writerSet[write] == ThreadSet::Subset && !guards.underThreadIndexGuard(write));
    };
    // The writes with a path to the release that passes no thread sync: one
    // backward walk per release that stops at syncs (a walk per write and
    // release grew with writes x releases x instructions: issue 33).
    const std::vector<InstId> direct = unsyncedWritesBefore(fn, release, isWrite);
    std::vector<Finding> candidates;
    for (InstId write : direct) candidates.push_back({release, write, false});
    // One thread of the block releases after a __syncwarp(): the writes of
    // other warps behind it (the writers' thread-index range spans more than
    // one warp) are not gathered (issue 30, shapes 3 and 6: FlashAttention's
    // SM100 backward, https://github.com/Dao-AILab/flash-attention/pull/2033).
    // Likewise threads of one warp (thread i of warp 0 releasing for warp i:
    // the releasers' %tid.x range lies in one warp).
    const bool releasersInOneWarp = releasers.second < kAnyThread.second && releasers.first / 32 == releasers.second / 32;
    if (releaser == ThreadSet::OneThread || releaser == ThreadSet::OneBlockThread ||
        (isThreadIndexSubset(releaser) && releasersInOneWarp)) {
      for (InstId write : unsyncedWritesBefore(fn, release, isWrite, /*warpSyncStops=*/false)) {
        if (std::binary_search(direct.begin(), direct.end(), write)) continue;
        if (!otherWarpsWrite(write)) continue;
        candidates.push_back({release, write, true});
      }
    }
    for (Finding& candidate : candidates) {
      const InstId write = candidate.write;
      const ThreadSet writer = writerSet[write];
      // tcgen05.st and tcgen05.wait::st are warp-collective (.sync.aligned):
      // when the wait is done, so is every lane's store; a lane of that warp
      // may release them. Other warps' stores are not gathered.
      if (isTensorMemoryWrite(fn, write) && (releaser == ThreadSet::OneLane || !otherWarpsWrite(write))) continue;
      if (!isThreadIndexSubset(releaser) && !widerThan(writer, releaser)) continue;
      const std::pair<int64_t, int64_t> writers = rangeOf(write);
      if (otherRoles(write, release)) continue;  // other threads' role
      // A subset of threads releases (thread i for warp i, `if (threadIdx.x <
      // nwarps)`): decided when the release sits under a branch on the thread
      // index that the write does not (issue 30, shape 3). A subset that
      // releases for itself is not: every thread that writes is one of the
      // releasing threads (each consumer writes, then arrives), so its own
      // arrive orders its own write and no other thread's write is handed off.
      if (isThreadIndexSubset(releaser) &&
          ((releasers.first <= writers.first && writers.second <= releasers.second) ||
           !((writer == ThreadSet::All || writer == ThreadSet::Subset) && guards.apart(release, write))))
        continue;
      if (kind == ReleaseKind::GlobalRelease && (isShared(fn, write) || isTensorMemoryWrite(fn, write)))
        continue;  // no other CTA reads it
      if (!reads) reads = consumerReads(fn, release, kind);
      if (std::none_of(reads->begin(), reads->end(), [&](InstId r) { return mayRead(fn, r, write); })) continue;
      // The writers release the write themselves on another barrier, and every
      // read that may see it waits on that barrier after the wait for this
      // release: the elected release hands over none of it.
      if (kind == ReleaseKind::Arrive) {
        const InstId own = writersOwnArrive(fn, guards, write, release);
        if (own >= 0) {
          auto [it, fresh] = readsNotBehindOwn.try_emplace(own);
          if (fresh) it->second = readsNotBehind(fn, release, own);
          if (std::none_of(it->second.begin(), it->second.end(), [&](InstId r) { return mayRead(fn, r, write); }))
            continue;
          candidate.ownArrive = own;
        }
      }
      if (reported.try_emplace(protocol::siteKey(fn, release), true).second)
        out.push_back(render(fn, candidate, kind));
      break;
    }
  }
}

}  // namespace fenceline::checks
