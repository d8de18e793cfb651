// The hand-off model of one function (issue 33): how a generic-proxy access
// of shared memory is handed to an async-proxy operation and whether a proxy
// fence that counts lies on the way. A stage of buildFunctionModel (after the
// protocol model), owned by the FunctionModel as `fn.handOffs`; proxy-war and
// proxy-raw ask it (checks/ProxyCommon.h keeps their shared reporting), and
// elected-arrive, bulk-store-reuse, mbarrier-init-fence and tcgen05-wait use
// its instruction classes.
//
// What it answers:
//  - which instructions touch shared memory through which proxy, which proxy
//    fences count for which threads (the instruction classes below);
//  - which bytes an access and an async operation may share (overlapOf,
//    AccessIndex);
//  - barrier pairing: which mbarrier arrive or named bar.arrive an issuer's
//    wait or bar.sync matches (sameBarrier, barrierKey, issuerWaits);
//  - per (access, async operation): is it handed over (same-thread program
//    order, bar.sync, an arrive the issuer waits on), and is every path
//    fenced by someone who counts (analyze; mayHandOff first, from facts
//    cached per access).
//
// Built in linear time (one pass classifying the instructions); every walk
// is computed on first use and kept: an access's fence-cut walk, its
// hand-off arrives per set of barrier words, the issuer's side per (wait,
// operation). So a function that no proxy check pairs costs one pass. The
// caches are filled through const queries: one function is checked by one
// thread at a time (driver/CheckModule.cpp), so they are not locked.
//
// The semantics are ../shared/ordering-rules.md, sections proxy-war and
// proxy-raw: a fence.proxy.async covering shared memory must lie on every
// path from a generic access to the async-proxy operation, executed either by
// every thread that made the access (before the hand-off) or by the thread
// that issues the async operation (after it acquired the hand-off).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "model/BlockReachability.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/Program.h"

namespace fenceline::model::handoff {

// A generic-proxy access (ld/st/atom/ldmatrix/stmatrix) of shared memory:
// the space is .shared[::cta|::cluster], or the value analysis narrows a
// generic address to shared memory.
bool isGenericSharedAccess(const FunctionModel& fn, InstId inst);
bool isGenericSharedWrite(const FunctionModel& fn, InstId inst);

// A generic-proxy access as the checks pair it: `access` names the bytes
// (its address operand, its size), `from` is where it takes effect on its
// thread's paths, where the search for a fence starts. Both are the
// instruction itself for ld/st/atom/ldmatrix/stmatrix. An Ampere cp.async
// writes its destination through the generic proxy when it completes
// (model/CopyCompletion.h): one entry per completion point, `from` being
// the wait_group / wait_all or the mbarrier wait there.
struct GenericAccess {
  InstId access = -1;
  InstId from = -1;
  bool completesLater() const { return from != access; }
  friend bool operator<(const GenericAccess& a, const GenericAccess& b) {
    return a.from != b.from ? a.from < b.from : a.access < b.access;
  }
};
// The generic accesses of shared memory of a function (writes only, or
// reads and writes), with Ampere copies at their completion points, in
// program order of `from`.
std::vector<GenericAccess> genericSharedAccesses(const FunctionModel& fn, bool writesOnly);

// An async-proxy write into shared memory (bulk/TMA copy with a shared
// destination, cp.reduce.async.bulk into shared memory).
bool isAsyncSharedWrite(const FunctionModel& fn, InstId inst);
// An async-proxy read of shared memory: bulk/TMA copy out of shared memory,
// wgmma / tcgen05 shared operands.
bool isAsyncSharedRead(const FunctionModel& fn, InstId inst);
// wgmma / tcgen05: operands through descriptors, the address is not known.
bool readsThroughDescriptor(const FunctionModel& fn, InstId inst);

// fence.proxy.async, .shared::cta, .shared::cluster, or the release form
// fence.proxy.async::generic.release.sync_restrict::shared::*; not .global.
bool isSharedProxyFence(const FunctionModel& fn, InstId inst);

// A fence counts for an access when it is executed by every thread that made
// the access: the fence is not under an election narrower than the access's.
bool fenceCoversThreadsOf(const FunctionModel& fn, InstId fence, InstId access);

// Points where a thread acquires a hand-off: bar.sync/barrier.sync, mbarrier waits.
bool isAcquirePoint(const FunctionModel& fn, InstId inst);
// An mbarrier arrive that can hand a buffer over: not the producer's own
// arrive.expect_tx, not an async-proxy completion arrive (tcgen05.commit).
bool isHandOffArrive(const FunctionModel& fn, InstId inst);
bool isMbarrierWait(const FunctionModel& fn, InstId inst);
// The two mbarrier operations may name the same barrier word.
bool sameBarrier(const FunctionModel& fn, InstId a, InstId b);
// A named barrier (issue 30, shape 11): `bar.arrive id, count` hands the
// arriving threads' accesses to the threads that wait at `bar.sync id[, count]`
// with the same id, in another branch of a warp-specialized kernel. A
// bar.sync with id 0 and no count is __syncthreads(), not named.
bool isNamedBarrierArrive(const FunctionModel& fn, InstId inst);
bool isNamedBarrierSync(const FunctionModel& fn, InstId inst);
// The ids of two named barrier operations: equal (both immediates, or one
// value), maybe equal (std::nullopt: a value the analysis does not know), or
// different.
std::optional<bool> sameNamedBarrier(const FunctionModel& fn, InstId a, InstId b);

// How many bytes an async copy moves, when that is known: the size operand of
// a non-tensor bulk copy, or for a tensor copy an upper bound from the
// expect_tx byte count announced on its completion barrier (the copies that
// complete on one barrier move exactly that many bytes together). -1 = unknown.
// `operand`: the shared operand the extent is wanted at (ring stride bound).
int64_t copyExtent(const FunctionModel& fn, InstId async, int operand);

// The widest generic shared access (ld.v4.b32, ldmatrix per thread): 16 bytes,
// the size assumed when an access's size is not known.
inline constexpr int64_t kMaxAccessBytes = 16;

// May the generic access `access` touch memory that operand `operand` of the
// async operation `async` covers (`extent` bytes from it, -1 = unknown)?
// Different shared objects never overlap; constant offsets of one object are
// compared against the extent; otherwise overlap is assumed.
bool mayOverlap(const FunctionModel& fn, InstId access, InstId async, int operand, int64_t extent);

// The same question with a third answer for matrix operands (wgmma,
// tcgen05.mma): Uncertain when the access misses the bytes the operands read
// at the fewest rows their instruction allows and meets only bytes read at a
// larger shape that the instruction descriptor does not decode, or when a
// descriptor could not be decoded at all (issue 11: say so in a note instead
// of assuming the overlap).
enum class Overlap { No, Uncertain, Yes };
// `operands`: the async operation's matrixOperands when it reads through
// descriptors, computed once by the caller that asks for many accesses (else
// computed here).
Overlap overlapOf(const FunctionModel& fn, InstId access, InstId async, int operand, int64_t extent,
                  const MemoryAnalysis::MatrixOperands* operands = nullptr);

// The generic accesses of a function grouped by what they touch, so that an
// async operation is paired only with the accesses whose bytes it may reach
// (a check stays near-linear instead of testing every pair): accesses of one
// object sorted by their first byte, and the ones with no bounded bytes.
class AccessIndex {
 public:
  AccessIndex(const FunctionModel& fn, std::vector<GenericAccess> accesses);
  // The accesses that may overlap bytes [begin, end) of `object` (plus every
  // access whose bytes or object are unknown), in program order; then the
  // exact mayOverlap decides.
  std::vector<GenericAccess> candidates(const MemoryLocation& target) const;
  const std::vector<GenericAccess>& all() const { return accesses_; }

 private:
  struct Entry {
    int64_t begin, end;
    GenericAccess access;
  };
  std::vector<GenericAccess> accesses_;
  std::map<MemoryObject, std::vector<Entry>> byObject_;  // sorted by begin
  std::map<MemoryObject, int64_t> longest_;              // longest access per object
  std::vector<GenericAccess> unbounded_;                 // unknown object or bytes
};

// How the access reaches the async operation, and whether that is fenced.
struct HandOff {
  bool hazard = false;
  InstId site = -1;  // where to report (arrive / barrier / the async op itself)
  enum class Kind { SameThread, Barrier, Arrive } kind = Kind::SameThread;
  // A proxy fence that is there but does not count (for a note saying why):
  // on the accessing thread's way to the hand-off, or the issuer's last fence
  // before the async operation (placed before its wait).
  InstId fence = -1;
  bool fenceIsIssuers = false;
  // What hands the access over: the bar.sync or mbarrier arrive on the way
  // (-1: the same thread's program order, no barrier between).
  InstId via = -1;
};

// Per async operation: the nearest mbarrier waits before it on its own thread's paths.
std::vector<InstId> waitsBefore(const FunctionModel& fn, InstId async);

// The issuer's side of one async operation, computed once per operation:
// the waits before it, and one of them per barrier word (waits on one word
// match the same arrives).
struct IssuerWaits {
  std::vector<InstId> waits;     // waitsBefore(async) and the nearest named barrier syncs, sorted
  std::vector<InstId> distinct;  // the first wait per barrier word, in `waits` order
  int keySet = -1;               // id of the sorted barrier words (equal ids: equal sets)
};

// A generic access reaches at most this many hand-off arrives per barrier set
// that the analysis examines: the nearest ones, breadth first (an unrolled
// pipeline repeats one arrive site per stage; the nearest carry the verdict
// and bound the walk).
inline constexpr size_t kMaxHandOffArrives = 32;

// Why the hand-off `via` (an mbarrier arrive or a named bar.arrive) is the
// partner of one of the issuer's `waits` (mbarrier waits, named bar.syncs):
// decided when the analysis shows one barrier (the same barrier word; equal
// named barrier ids). For a named barrier `how` is "named-barrier" or
// "named-barrier-id"; for an mbarrier it is MemoryAnalysis's tag, or
// "unknown-barrier" when no wait could be matched.
AliasEvidence partnerEvidence(const FunctionModel& fn, InstId via, const std::vector<InstId>& waits);

// --- Threads that nothing synchronizes (issue 30, shape 7) -----------------
// An instruction that synchronizes the executing thread with other threads of
// its CTA, or may: bar.sync / barrier.sync / named barriers (bar.arrive too),
// bar.warp.sync, cluster barriers, mbarrier arrives and waits, a strong load,
// store or read-modify-write (a flag hand-off), a call. (A fence alone does
// not: it orders the executing thread's own accesses.)
bool mayOrderThreads(const FunctionModel& fn, InstId inst);
// The instructions satisfying `wanted` from which some CFG path reaches `to`
// (backward), or that some CFG path from `from` reaches (forward), passing no
// instruction that mayOrderThreads strictly between; the walks go on past
// the wanted ones. Sorted, no duplicates. One linear walk each.
std::vector<InstId> unsynchronizedBefore(const FunctionModel& fn, InstId to, const std::function<bool(InstId)>& wanted);
std::vector<InstId> unsynchronizedAfter(const FunctionModel& fn, InstId from, const std::function<bool(InstId)>& wanted);

// The stage. Instruction reachability in constant time per question (block
// closures, model/BlockReachability.h): the checks ask it for every (access,
// async operation) pair. It also keeps the per-access facts that do not
// depend on which async operation follows: where the access's paths go
// before a fence of its threads cuts them, and its mbarrier hand-offs per
// set of waits.
class HandOffAnalysis {
 public:
  explicit HandOffAnalysis(const FunctionModel& fn);

  // genericSharedAccesses(fn, writesOnly), found once per function.
  const std::vector<GenericAccess>& accesses(bool writesOnly) const;

  bool reaches(InstId from, InstId to) const;
  // `to` is reached from `access` on a path that passes no shared proxy fence
  // covering the access's threads (the walk of everyPathPasses(access, to,
  // covering fence), kept per access).
  bool reachesUnfenced(InstId access, InstId to) const;
  // Every path from `access` meets a fence covering its threads before any
  // hand-off arrive and any async-proxy operation on shared memory: no
  // analyze(access, ...) can find a hazard, so the checks pair the access
  // with nothing. (A walk that ends at the first such instruction.)
  bool sealed(InstId access) const;

  // What each instruction is, computed once (the walks test every visited one).
  bool isHandOffArrive(InstId i) const { return flags_[i] & kHandOffArrive; }
  bool isSharedProxyFence(InstId i) const { return flags_[i] & kSharedProxyFence; }
  bool isAnyProxyFence(InstId i) const { return flags_[i] & kAnyProxyFence; }
  bool hasProxyFence() const { return hasProxyFence_; }  // some fence.proxy.async in the function
  bool isAcquirePoint(InstId i) const { return flags_[i] & kAcquirePoint; }
  bool isCtaBarrier(InstId i) const { return flags_[i] & kCtaBarrier; }
  // The instructions where those walks can stop, sorted (model::everyPathPasses
  // with mayStop): the shared proxy fences, and those plus the acquire points.
  const std::vector<InstId>& sharedProxyFences() const { return sharedProxyFences_; }
  const std::vector<InstId>& fencesAndAcquirePoints() const { return fencesAndAcquirePoints_; }
  // A named barrier meets only a named barrier (equal or unknown ids), an
  // mbarrier only an mbarrier that may be the same word. Memoized.
  bool sameBarrier(InstId a, InstId b) const;
  // The barrier word a wait polls, as a key: waits with equal keys match the
  // same arrives. Memoized.
  int64_t barrierKey(InstId wait) const;
  IssuerWaits issuerWaits(InstId async) const;

  // False when analyze(access, async) certainly finds no hazard, from facts
  // cached per access (reachability, the fence-cut walk, the hand-off
  // arrives once an earlier pair computed them): the checks ask it first,
  // before the costlier overlap test. `access` is GenericAccess::from.
  bool mayHandOff(InstId access, InstId async, const IssuerWaits& issuer) const;
  // Decides whether `access` (GenericAccess::from) reaches `async` unfenced.
  // `issuer` = issuerWaits(async). `reportAtAsync`: the report site is
  // always the async operation (proxy-raw).
  HandOff analyze(InstId access, InstId async, const IssuerWaits& issuer, bool reportAtAsync) const;

  struct ArriveHandOff {
    InstId arrive = -1;
    bool fencedByAccessor = false;  // every path access -> arrive passes a covering fence
  };
  // The nearest hand-off arrives after `access` on barriers the issuer
  // waits on (at most kMaxHandOffArrives), each with whether the accessing
  // threads fenced before it; kept per (access, set of barrier words).
  const std::vector<ArriveHandOff>& handOffArrives(InstId access, const IssuerWaits& issuer) const;

 private:
  enum : uint8_t {
    kHandOffArrive = 1,
    kSharedProxyFence = 2,
    kAnyProxyFence = 4,
    kAcquirePoint = 8,
    kCtaBarrier = 16,
    kAsyncSharedOperation = 32,  // an async-proxy write or read of shared memory
  };
  // Where one access's unfenced walk went: the blocks it entered from the
  // top with the last instruction visited in each (sorted by block), and the
  // last instruction visited in the access's own block after the access.
  struct UnfencedWalk {
    std::vector<std::pair<BlockId, InstId>> entered;
    InstId startEnd = -1;
  };
  UnfencedWalk walkUnfenced(InstId access) const;
  bool readsOnlyBeforeFill(InstId access, InstId async) const;

  const FunctionModel& fn_;
  // fn.reachability (buildFunctionModel builds it), else one of our own.
  std::unique_ptr<BlockReachability> ownBlocks_;
  const BlockReachability* blocks_ = nullptr;
  std::vector<uint8_t> flags_;
  bool hasProxyFence_ = false;
  std::vector<InstId> sharedProxyFences_, fencesAndAcquirePoints_;

  // Computed on first use (see the header comment).
  mutable std::optional<std::vector<GenericAccess>> accesses_[2];  // [writesOnly]
  // The blocks a backward walk for the nearest mbarrier wait (named barrier
  // sync) enters (built on first use by issuerWaits).
  mutable std::optional<TargetBlocks> waitBlocks_, namedSyncBlocks_;
  mutable std::optional<TargetBlocks> arriveBlocks_;  // the blocks that reach a hand-off arrive (forward walks)
  mutable std::map<std::pair<InstId, InstId>, bool> sameBarrier_;
  mutable std::map<BlockId, std::vector<char>> walked_;  // per source block, when fn.reachability has no closures
  mutable std::vector<int64_t> barrierKeys_;             // per wait; INT64_MIN = not computed
  mutable std::map<std::vector<int64_t>, int> keySets_;
  mutable std::map<InstId, UnfencedWalk> unfenced_;
  // (access, IssuerWaits::keySet) -> the nearest matching arrives.
  mutable std::map<std::pair<InstId, int>, std::vector<ArriveHandOff>> arrives_;
  mutable std::map<std::pair<InstId, InstId>, bool> issuerFenced_;  // (wait, async) -> every path fenced
  // (acquire point, async) -> every path from the acquire point to the async
  // operation passes a shared-memory proxy fence (any thread's: the same for
  // every access that reaches the acquire point).
  mutable std::map<std::pair<InstId, InstId>, bool> fencedAfterAcquire_;
};

}  // namespace fenceline::model::handoff
