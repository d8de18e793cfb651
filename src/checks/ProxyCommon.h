// What proxy-war and proxy-raw share: which instructions touch shared memory
// through which proxy, which proxy fences count for which threads, how a
// generic access is handed to an async-proxy operation (same-thread program
// order, bar.sync, or an mbarrier arrive that the issuer waits on), and the
// per-path test "is every path from this access to that async operation
// fenced by someone who counts". The two checks differ only in which accesses
// and which async operations they pair, and in where they report.
#pragma once

#include <map>
#include <optional>
#include <unordered_map>

#include <string>
#include <vector>

#include "model/BlockReachability.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/Program.h"
#include "report/Diagnostic.h"

namespace fenceline::checks::proxy {

using model::FunctionModel;
using model::InstId;

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
                  const model::MemoryAnalysis::MatrixOperands* operands = nullptr);

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
  std::vector<GenericAccess> candidates(const model::MemoryLocation& target) const;
  const std::vector<GenericAccess>& all() const { return accesses_; }

 private:
  struct Entry {
    int64_t begin, end;
    GenericAccess access;
  };
  std::vector<GenericAccess> accesses_;
  std::map<model::MemoryObject, std::vector<Entry>> byObject_;  // sorted by begin
  std::map<model::MemoryObject, int64_t> longest_;              // longest access per object
  std::vector<GenericAccess> unbounded_;                         // unknown object or bytes
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
  std::vector<InstId> waits;     // waitsBefore(async)
  std::vector<InstId> distinct;  // the first wait per barrier word, in `waits` order
  int keySet = -1;               // id of the sorted barrier words (equal ids: equal sets)
};

// Instruction reachability in constant time per question (block closures,
// model/BlockReachability.h): the checks ask it for every (access, async
// operation) pair. It also keeps the per-access facts that do not depend on
// which async operation follows: where the access's paths go before a fence
// of its threads cuts them, and its mbarrier hand-offs per set of waits.
class ReachCache {
 public:
  explicit ReachCache(const FunctionModel& fn);
  bool reaches(InstId from, InstId to);
  // `to` is reached from `access` on a path that passes no shared proxy fence
  // covering the access's threads (the walk of everyPathPasses(access, to,
  // covering fence), kept per access).
  bool reachesUnfenced(InstId access, InstId to);
  // Every path from `access` meets a fence covering its threads before any
  // hand-off arrive and any async-proxy operation on shared memory: no
  // analyzeHandOff(access, ...) can find a hazard, so the checks pair the
  // access with nothing. (A walk that ends at the first such instruction.)
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
  // sameBarrier(), memoized.
  bool sameBarrier(InstId a, InstId b);
  // The barrier word a wait polls, as a key: waits with equal keys match the
  // same arrives. Memoized.
  int64_t barrierKey(InstId wait);
  IssuerWaits issuerWaits(InstId async);

  struct ArriveHandOff {
    InstId arrive = -1;
    bool fencedByAccessor = false;  // every path access -> arrive passes a covering fence
  };
  // (access, IssuerWaits::keySet) -> the nearest matching arrives.
  std::map<std::pair<InstId, int>, std::vector<ArriveHandOff>> arrives;
  std::map<std::pair<InstId, InstId>, bool> issuerFenced;  // (wait, async) -> every path fenced
  // (acquire point, async) -> every path from the acquire point to the async
  // operation passes a shared-memory proxy fence (any thread's: the same for
  // every access that reaches the acquire point).
  std::map<std::pair<InstId, InstId>, bool> fencedAfterAcquire;

 private:
  std::vector<InstId> sharedProxyFences_, fencesAndAcquirePoints_;
  // The blocks a backward walk for the nearest mbarrier wait (named barrier
  // sync) enters (built on first use by issuerWaits).
  std::optional<model::TargetBlocks> waitBlocks_, namedSyncBlocks_;
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
    std::vector<std::pair<model::BlockId, InstId>> entered;
    InstId startEnd = -1;
  };
  UnfencedWalk walkUnfenced(InstId access) const;

  const FunctionModel& fn_;
  std::vector<uint8_t> flags_;
  bool hasProxyFence_ = false;
  std::map<std::pair<InstId, InstId>, bool> sameBarrier_;
  model::BlockReachability blocks_;
  std::map<model::BlockId, std::vector<char>> walked_;  // per source block, when blocks_ has no closures
  std::vector<int64_t> barrierKeys_;                 // per wait; INT64_MIN = not computed
  std::map<std::vector<int64_t>, int> keySets_;
  std::map<InstId, UnfencedWalk> unfenced_;
};

// A generic access reaches at most this many hand-off arrives per barrier set
// that the analysis examines: the nearest ones, breadth first (an unrolled
// pipeline repeats one arrive site per stage; the nearest carry the verdict
// and bound the walk).
inline constexpr size_t kMaxHandOffArrives = 32;

// In the three functions below, `access` is GenericAccess::from: the point
// where the access takes effect.

// False when analyzeHandOff(access, async) certainly finds no hazard, from
// facts cached per access (reachability, the fence-cut walk, the hand-off
// arrives once an earlier pair computed them): the checks ask it first,
// before the costlier overlap test.
bool mayHandOff(const FunctionModel& fn, ReachCache& reach, InstId access, InstId async, const IssuerWaits& issuer);

// Decides whether `access` reaches `async` unfenced. `issuer` = reach.issuerWaits(async).
// `reportAtAsync`: for proxy-raw the report site is always the async read.
HandOff analyzeHandOff(const FunctionModel& fn, ReachCache& reach, InstId access, InstId async,
                       const IssuerWaits& issuer, bool reportAtAsync);

// Collects findings per site, with distinct notes, and emits them in order.
struct Finding {
  InstId site = -1;
  HandOff::Kind kind = HandOff::Kind::SameThread;
  std::vector<InstId> accesses;  // one per distinct source site
  std::vector<InstId> completions;  // per entry of `accesses`: where a cp.async completes, else -1
  std::vector<InstId> asyncs;
  InstId fence = -1;             // the first fence that did not count, if any
  bool fenceIsIssuers = false;
  InstId fenceAccess = -1;       // the access (its GenericAccess::from) it failed to cover
  // Per entry of `accesses`: it meets the async operation's bytes only where
  // the matrix descriptors are not decoded (Overlap::Uncertain). And whether
  // some access meets them for certain: a finding with none is a note.
  std::vector<bool> accessUncertain;
  bool certainOverlap = false;
  // The links of one (access, async operation) pair (report/Evidence.h): a
  // pair whose links are all decided when some pair's are, else the first.
  std::vector<report::EvidenceLink> evidence;
  bool decided = false;
};

class FindingSet {
 public:
  // `operand`, `extent`: the async operation's shared operand and its bytes
  // (as for overlapOf), for the evidence that the two touch the same bytes.
  void add(const FunctionModel& fn, const HandOff& handOff, GenericAccess access, InstId async, int operand,
           int64_t extent, Overlap overlap = Overlap::Yes);
  template <class Render>
  void emit(const FunctionModel& fn, Render render, std::vector<report::Diagnostic>& out) const {
    for (int site : order_) out.push_back(render(fn, entries_.at(site).finding));
  }

 private:
  struct Entry {
    Finding finding;
    std::vector<int> accessSites, asyncSites;
  };
  std::unordered_map<int, Entry> entries_;  // by the site of the finding
  std::vector<int> order_;                  // the sites in the order they were found
  // The source site of an instruction (protocol::siteKey), numbered: computed
  // once per instruction, since every pair of a finding names its site, access
  // and async operation again, and compared as a number.
  int siteOf(const FunctionModel& fn, InstId inst);
  std::unordered_map<InstId, int> siteOfInst_;
  std::unordered_map<std::string, int> siteNumbers_;
  std::unordered_map<InstId, std::vector<InstId>> waitsOf_;  // waitsBefore, per async operation
  // The decoded operands of each matrix instruction, for pairEvidence.
  std::unordered_map<InstId, model::MemoryAnalysis::MatrixOperands> operandsOf_;
  std::unordered_map<int, int> attempts_;  // pairs whose evidence was computed, per finding site
};

// The evidence of one (access, async operation) pair handed over by
// `handOff`: the access, the hand-off (and, for an mbarrier, that the
// arrive and the issuer's wait are one barrier), the async operation, and
// why the two touch the same bytes (model/Memory.h AliasEvidence; a decoded
// matrix descriptor). `waits`: the issuer's waits before the operation.
// `operands`: the async operation's decoded matrix operands when it reads
// through descriptors (computed by the caller, once per operation).
std::vector<report::EvidenceLink> pairEvidence(const FunctionModel& fn, const HandOff& handOff, InstId access,
                                               InstId async, int operand, int64_t extent, Overlap overlap,
                                               const std::vector<InstId>& waits,
                                               const model::MemoryAnalysis::MatrixOperands* operands = nullptr);

// A note on a fence that is present but does not count, saying why.
report::Note fenceNote(const FunctionModel& fn, const Finding& finding);

// For entry k of finding.accesses that is a cp.async: the note at the point
// where it completes (its writes take effect there, and a fence counts only
// after it). Empty text when the access is an ordinary one.
report::Note completionNote(const FunctionModel& fn, const Finding& finding, size_t k);
// Where a fence of the access's own thread must come after: the access, or
// the completion point of a cp.async (for FixRequest::after).
InstId fenceAfter(const Finding& finding, size_t k);

inline constexpr size_t kMaxAccessNotes = 3;  // per kind: plain accesses, cp.async copies
inline constexpr size_t kMaxAsyncNotes = 2;

// A short name of what an instruction is, for notes: "ld.shared", "ldmatrix",
// "cp.async.bulk.tensor", "wgmma.mma_async", ...
std::string describe(const FunctionModel& fn, InstId inst);
// The kernel's display name.
std::string functionName(const FunctionModel& fn);

}  // namespace fenceline::checks::proxy
