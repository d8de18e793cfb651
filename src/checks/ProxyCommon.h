// What proxy-war and proxy-raw share in reporting: findings collected per
// site with their notes, the evidence of a pair, the notes on fences that do
// not count. The analysis they ask (which instructions touch shared memory
// through which proxy, which fences count, how an access is handed to an
// async-proxy operation and whether every path is fenced) is the function
// model's hand-off stage, model/HandOffs.h; its names are re-exported here.
// The two checks differ only in which accesses and which async operations
// they pair, and in where they report.
#pragma once

#include <map>
#include <optional>
#include <unordered_map>

#include <string>
#include <vector>

#include "checks/ProtocolReport.h"
#include "model/HandOffs.h"
#include "model/Memory.h"
#include "model/Program.h"
#include "report/Diagnostic.h"

namespace fenceline::checks::proxy {

using model::FunctionModel;
using model::InstId;

// The analysis itself is the function model's hand-off stage
// (model/HandOffs.h, `fn.handOffs`); its names are used here as before.
using model::handoff::AccessIndex;
using model::handoff::copyExtent;
using model::handoff::fenceCoversThreadsOf;
using model::handoff::GenericAccess;
using model::handoff::genericSharedAccesses;
using model::handoff::HandOff;
using model::handoff::isAcquirePoint;
using model::handoff::isAsyncSharedRead;
using model::handoff::isAsyncSharedWrite;
using model::handoff::isGenericSharedAccess;
using model::handoff::isGenericSharedWrite;
using model::handoff::isHandOffArrive;
using model::handoff::isMbarrierWait;
using model::handoff::isNamedBarrierArrive;
using model::handoff::isNamedBarrierSync;
using model::handoff::isSharedProxyFence;
using model::handoff::IssuerWaits;
using model::handoff::kMaxAccessBytes;
using model::handoff::kMaxHandOffArrives;
using model::handoff::mayOverlap;
using model::handoff::Overlap;
using model::handoff::overlapOf;
using model::handoff::readsThroughDescriptor;
using model::handoff::sameBarrier;
using model::handoff::sameNamedBarrier;
using model::handoff::waitsBefore;
using ReachCache = model::handoff::HandOffAnalysis;

// The function's hand-off stage: fn.handOffs, built by buildFunctionModel
// (a model built otherwise, as some unit tests do, gets one kept in `local`).
const ReachCache& handOffsOf(const FunctionModel& fn, std::optional<ReachCache>& local);

// Forwards to the stage (ReachCache::mayHandOff / analyze), kept for callers.
// In both, `access` is GenericAccess::from: the point where the access takes effect.
inline bool mayHandOff(const FunctionModel&, ReachCache& reach, InstId access, InstId async,
                       const IssuerWaits& issuer) {
  return reach.mayHandOff(access, async, issuer);
}
inline HandOff analyzeHandOff(const FunctionModel&, ReachCache& reach, InstId access, InstId async,
                              const IssuerWaits& issuer, bool reportAtAsync) {
  return reach.analyze(access, async, issuer, reportAtAsync);
}

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
  // A program-order finding that stands for several copies (FindingSet::
  // groupProgramOrder): the other copies' sites, one instruction each; and
  // whether one fence before `site` covers them all (else one goes before
  // each).
  std::vector<InstId> groupCopies;
  bool oneFenceCovers = true;
};

class FindingSet {
 public:
  // `operand`, `extent`: the async operation's shared operand and its bytes
  // (as for overlapOf), for the evidence that the two touch the same bytes.
  void add(const FunctionModel& fn, const HandOff& handOff, GenericAccess access, InstId async, int operand,
           int64_t extent, Overlap overlap = Overlap::Yes);
  // proxy-war: the program-order findings of one function made by the same
  // generic accesses are one missing fence (its fix goes after those accesses,
  // whichever copy comes next): one finding, at the copy whose fence covers
  // every other (when one does), the other copies as notes.
  void groupProgramOrder(const FunctionModel& fn);
  template <class Render>
  void emit(const FunctionModel& fn, Render render, std::vector<report::Diagnostic>& out) const {
    for (int site : order_) out.push_back(render(fn, entries_.at(site).finding));
  }

 private:
  struct Entry {
    Finding finding;
    std::vector<int> accessSites, asyncSites;
    // Every pair's, not only the noted ones (for groupProgramOrder): the
    // accesses' sites (sorted), where they take effect, and the async
    // operations at the finding's site.
    std::vector<int> allAccessSites;
    std::vector<InstId> froms, siteAsyncs;
  };
  // Moves entry `from`'s copies, notes and evidence into `into`.
  void merge(Entry& into, const Entry& from);
  // A fence before the copies of entry `site` is on every path from each of
  // `froms` to each copy of the entries `others` (but `site` itself).
  bool covers(const FunctionModel& fn, int site, const std::vector<InstId>& froms, const std::vector<int>& others);
  // The copy of `group` (entry sites) before which one fence is on every path
  // from the group's accesses to every other copy of the group, or -1.
  int coveringSite(const FunctionModel& fn, const std::vector<int>& group);
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

// Issue 30, shape 7: `access` is made by threads other than those that issue
// `async` (decidedly): the issue sits under a branch (or predicate) on the
// thread index that the access does not (protocol::ThreadGuards::apart), the
// access is not one that a single thread makes, and the %tid.x ranges the
// guards narrow the two to meet (else they are two roles of a
// warp-specialized kernel and no thread takes the path between them).
bool madeByOtherThreads(const FunctionModel& fn, protocol::ThreadGuards& guards, InstId async, InstId access);

// Shape M (docs/real-code.md, "Shapes M and A"): the access reaches the
// async write `async` only by program order (no barrier or arrive between
// them), so only the thread that issues `async` has its own instance of the
// access ordered before it. When more threads make the access than issue
// (an election issues, every thread accesses) and the access's address
// depends on the thread index, the bytes the analysis relates are those of
// every thread's instance, not the issuer's: true, unless every instance
// lies inside the operation's bytes (`operand`, `extent` as for overlapOf).
// (pairEvidence asks it only for offsets it could not bound, `same-buffer`.)
bool onlyTheIssuersInstanceIsOrdered(const FunctionModel& fn, InstId access, int address, int64_t size, InstId async,
                                     int operand, int64_t extent);

// A short name of what an instruction is, for notes: "ld.shared", "ldmatrix",
// "cp.async.bulk.tensor", "wgmma.mma_async", ...
std::string describe(const FunctionModel& fn, InstId inst);
// The kernel's display name.
std::string functionName(const FunctionModel& fn);

}  // namespace fenceline::checks::proxy
