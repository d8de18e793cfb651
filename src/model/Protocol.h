// The flag and barrier protocols of one function, and who their partner is.
// Built once per function by buildProgram (after values and thread roles);
// acquire-missing, release-missing, scope-too-narrow, barrier-reuse and
// barrier-init-race read it and derive nothing of their own.
//
// The partner of a signal or a wait is another instance of the same kernel
// (another block, another rank's copy writing through peer pointers) or code
// outside the kernel (the host, another kernel). The model answers:
//  - spin loops and their polls (SpinLoops.h);
//  - signals: writes a poll of this function may observe (a store with
//    volatile/relaxed/stronger semantics or an integer atomic, to a word some
//    poll may read); and outbound signals: flags whose partner is outside the
//    kernel (no poll here), judged only on clear evidence;
//  - the data a wait guards and the writes a signal publishes (the partner
//    model below), less the copies of polled words (a cached index stored
//    only with values a poll returned: PolledCopies.cpp);
//  - what counts as an acquire, a release and "a release for this signal";
//  - the scope a flag's partner needs.
// Exemptions found on real code are named facts (functions whose names state
// the fact), each with the shape it came from.
//
// Memory identity comes from model/Memory (objects, byte ranges, No/May/Must)
// and model/Values; Protocol.cpp's alias() adds the partner model's one
// coarsening (pointers read from memory compare by their table, since two
// entries of a peer table read by two ranks may point into one buffer),
// except for pointers read from two distinct fields of one record
// (pointersFromDistinctFields) and for offsets from two entries of one table,
// or from one pointer the kernel cannot rewrite, that never meet
// (entriesOfOneTable, throughOneFixedPointer). Where only that coarsening
// makes two accesses meet (Memory's No under one value of the pointer), their
// evidence is undecided (undecideRereadPointer). The rules for pointers read
// from memory (fields, peer pointers) are in ProtocolPointers.cpp.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "model/BranchEdges.h"
#include "model/PairMap.h"
#include "model/PairTable.h"
#include "model/Program.h"
#include "model/FirstBarrier.h"
#include "model/InternedLists.h"
#include "model/Memory.h"
#include "model/SpinLoops.h"

namespace fenceline::model {

using Alias = AliasResult;
class UniformModes;  // model/UniformModes.h

class ProtocolModel {
 public:
  explicit ProtocolModel(const FunctionModel& function);

  const FunctionModel& function() const { return fn_; }
  // The memo tables' sizes, largest first ("name=KiB/entries ..."), for
  // FENCELINE_MEMSTATS: which pairwise answers a function's checks kept.
  std::string memoStats() const;
  const std::vector<SpinLoop>& spins() const { return spins_; }
  // Signals some poll of this function may observe (sorted).
  const std::vector<InstId>& signals() const { return signals_; }

  // The accesses of a list (polls, signals) grouped by the word they touch,
  // so that "which of them may be the same word as X" looks at the ones that
  // may be, not at all of them (issue 33: polls x signals was quadratic).
  // An access is indexed when its location is one named object with known
  // bytes and its root is not a loaded pointer: two such accesses of one
  // object whose bytes do not overlap never alias (MemoryAnalysis::alias and
  // computeAlias both answer No). candidates() is a superset of the entries
  // that maySameWord the query, in the list's order. The entries are first
  // grouped by the root object of their address (ValueIdentity::addressRoot):
  // maySameWord asks mayShareRoot, so a query with a known root looks only at
  // its own root's group and the group of unknown roots (issue 33: stores to
  // one pointer parameter against the polls of another were every pair).
  struct WordIndex {
    struct Group {
      std::map<MemoryObject, std::vector<std::pair<ByteRange, InstId>>> exact;  // each sorted by begin
      std::map<MemoryObject, int64_t> widest;                                     // widest range of each object
      std::vector<InstId> rest;                                                   // not indexed
    };
    std::map<std::string, Group> byRoot;  // "": the root is unknown
    std::vector<InstId> all;              // the whole list, in order
    std::unordered_map<InstId, size_t> position;  // index in `all`, when `all` is not sorted
  };
  WordIndex wordIndex(const std::vector<InstId>& list) const;
  std::vector<InstId> candidates(const WordIndex& index, InstId inst) const;
  const std::string& addressRootOf(InstId inst) const;
  // Signals whose partner is outside the kernel (sorted; see isOutboundSignal).
  const std::vector<InstId>& outboundSignals() const { return outboundSignals_; }
  // A flag for the host or a later kernel on clear evidence: one word of a
  // parameter object, the same for every thread (`*done`), written by a
  // volatile/relaxed/stronger store, a .sys atomic or a launch-value publish.
  bool isOutboundSignal(InstId inst) const;

  // The spin loop whose poll `inst` is, or null. O(1).
  const SpinLoop* spinContaining(InstId inst) const;
  bool isPoll(InstId inst) const { return spinContaining(inst) != nullptr; }
  // An atomic before a spin loop that makes the loop's first trip (a lock's
  // first CAS, peeled by the compiler: SpinLoop::peeledPolls). O(1).
  bool isPeeledPoll(InstId inst) const;
  // A poll, or a load of a polled word outside its loop (the first poll,
  // peeled before a rotated loop). A payload-carrying poll (an LL packet read
  // by one ld.volatile.v2/v4 of {data, flag}) delivers its data in this same
  // access, so the data needs no acquire of its own.
  bool isPollAccess(InstId inst) const;

  // --- The partner model -------------------------------------------------
  // Data a wait (poll `poll`) guards: a read after the wait of memory its
  // partner wrote before signalling.
  //  - The partner is another instance of this kernel (a signal here may
  //    write the polled word): it runs this code, so what it wrote before its
  //    signal are the writes that may execute before that signal
  //    (partnerWrites). A read that none of them may touch (team state and
  //    pointer tables reached through NVSHMEM's device state, the epoch
  //    counter the barrier itself keeps) is not guarded: such a wait is an
  //    execution barrier.
  //  - The partner is outside the kernel: any memory not provably immutable
  //    (peer memory behind a pointer table included). Reads of objects no
  //    write of the kernel touches (`const __restrict__` inputs read with
  //    ld.global.nc) are not guarded.
  bool isGuardedRead(InstId read, InstId poll) const;
  // Candidates for isGuardedRead(i, poll) among the instructions reachable
  // from `poll`, sorted (findReachable's `mayTarget`): the guarded reads
  // when the after-wait scan of the poll has been made, else every data read.
  const std::vector<InstId>& guardedReadsAfter(InstId poll) const;
  // `read` lies inside the spin loop of `poll`, on the way out of it: its
  // block is entered only on a branch edge that tests the value the poll
  // returned with a condition that implies the loop's exit (a spin lock whose
  // critical section is inside the loop: `while (!done) { if
  // (atomicCAS(lock, 0, 1) == 0) { ...; done = true; } }`). Such a read comes
  // after the observation, like a read after the loop.
  bool readsAfterObservation(InstId read, InstId poll) const;
  // Some path from `poll` reaches `read` without leaving `spin` (the poll's
  // spin) through an exit that other polls of the loop decide alone
  // (leavesWithoutPoll). True when the spin has no such exit.
  bool reachedAfterObservation(const SpinLoop& spin, InstId read, InstId poll) const;
  // The in-kernel partner's data writes for a wait: the global writes that
  // may execute before some signal of this kernel that may write the polled
  // word, flag writes (those signals, accesses to polled words) left out,
  // and the opaque calls that may execute before such a signal (a quiet
  // that completes the partner's puts, a put through a proxy: they may have
  // written anything) except flag-only calls. Sorted; memoized per poll.
  const std::vector<InstId>& partnerWrites(InstId poll) const;
  // A write before `signal` that the signal must publish: some read after a
  // wait on that signal's word may read it (or the partner is outside the
  // kernel). Writes to the signal's own word and other signals on the same
  // flag object are not published data.
  bool isPublishedWrite(InstId write, InstId signal) const;
  // Every instruction that writes global memory (those no thread makes too):
  // isPublishedWrite holds at no other, sorted (a backward walk's `mayTarget`).
  const std::vector<InstId>& globalWrites() const { return globalWrites_; }
  // Alias of two memory accesses (their MemoryEffect::address operands),
  // kept in the pair table; a No only when `keepNo` (a scan whose own answer
  // is kept passes over pairs no other question asks: their No need not be
  // kept; a May is asked again by the scan's next step).
  Alias alias(InstId a, InstId b, bool keepNo = true) const;
  // The two accesses may touch the same word.
  bool maySameWord(InstId a, InstId b) const;

  // --- Evidence (issue 29): which links of a hazard are decided ------------
  // alias() with how it was reached: Memory's AliasEvidence (must-alias, the
  // same object at overlapping offsets), or "peer-table": two entries of one
  // pointer table, one of them indexed by rank or peer (on the partner's
  // rank, the entry it writes through is this rank's buffer), or
  // "block-group-table": two entries of one pointer table indexed by values
  // computed from the block's position (Peer::BlockGroup: another block's
  // entry is this block's). Undecided where alias() rests on "could not tell".
  AliasEvidence aliasEvidence(InstId a, InstId b) const;
  // The same for two given operands (a copy's source, say) instead of the
  // instructions' memory addresses.
  // `withDetail` false: without the sentence (AliasEvidence::detail empty).
  AliasEvidence aliasEvidence(InstId a, int operandA, InstId b, int operandB, bool withDetail = true) const;
  // aliasEvidence(a, b) without the sentence, kept in two bytes a pair: what
  // the pairwise questions (readers, signals, scopes) test, asked for
  // millions of pairs on communication code (issue 35).
  struct AliasFacts {
    Alias result = Alias::May;
    bool decided = false;
    std::string_view how;
    bool same() const { return decided && result != Alias::No; }
    bool sameBytes() const { return same() && how != "same-buffer"; }
  };
  AliasFacts aliasFacts(InstId a, InstId b) const;
  // One link found by the questions below: the instruction (or -1), and why
  // it is that link (decided or not).
  struct Link {
    InstId inst = -1;
    AliasEvidence evidence;
  };
  // The signal of this kernel the wait `poll` observes: a signal whose word
  // is decidedly the polled word when there is one, else an undecided one;
  // inst -1 when no write of this kernel raises the flag (the partner is
  // outside the kernel).
  Link observedSignal(InstId poll) const;
  // For a guarded read after `poll` whose partner is in the kernel: the
  // partner write it reads (partnerWrites), decidedly when one is; an opaque
  // call (which may write anything) is never decided.
  Link partnerWriteRead(InstId read, InstId poll) const;
  // What partnerWriteRead's link is, without its evidence text: the write
  // (-1: none), whether the link is decided, whether it is a strong pair
  // (isStrongPair). For searches that ask many reads and show one.
  struct PartnerFacts {
    InstId inst = -1;
    bool decided = false;
    bool strongPair = false;
    bool polledCopy = false;  // the write is a polled copy store (isPolledCopyStore)
    bool unrelatedSignal = false;  // it precedes no signal the wait observes (signalledToWait)
  };
  PartnerFacts partnerWriteFacts(InstId read, InstId poll) const;
  // Some write of this kernel before `signal` (the signal the wait of `poll`
  // observes), in the wait's mode of the launch, may be what `read` returns:
  // a write the analysis could not relate to the read, but may. The partner
  // writes of a poll are gathered before its in-kernel signals only; this
  // asks the same of a signal found through symmetric addressing (a peer's
  // copy of the polled field, a call given the flag). With none, a read after
  // the wait reads what was there before the launch (issue 34, NCCL's
  // AlltoAll_LL: a configuration field of the polled record).
  bool mayReadWriteBeforeSignal(InstId read, InstId poll, InstId signal) const;
  // A data link that hands nothing weak (issue 34, NVSHMEM's C, NCCL's U):
  // the write is an atomic or a relaxed-or-stronger (or volatile) store, the
  // read a relaxed-or-stronger (or volatile) load or an atomic, both scalar
  // generic-proxy accesses of global memory of one size at scopes that
  // include the partner (.gpu, or .sys when either goes through a peer
  // pointer). Naturally aligned accesses of one size that overlap are the same
  // location, so the two are morally strong: no data race, and the read
  // returns one of the word's values in coherence order. Whether an older
  // value breaks the protocol (a counter read as a lower bound, or a value
  // handed as a message) is not in the PTX: the pair's link is undecided
  // (`strong-pair`) wherever a read is paired with a write as data.
  bool isStrongPair(InstId write, InstId read) const;
  // The undecided evidence of such a pair.
  static AliasEvidence strongPairEvidence();
  // The undecided evidence of a data link whose write is a polled copy store
  // (isPolledCopyStore): it stores a value a polled word held, which hands
  // nothing; whether the read reads data rests on the word's other writes.
  static AliasEvidence polledCopyEvidence();
  // aliasEvidence(write, read) for a data pair: a link that decidedly meets
  // but hands nothing weak (a polled copy, a strong pair: undecidedPairHow)
  // is that undecided evidence instead. For checks that pick a read to show.
  AliasEvidence dataPairEvidence(InstId write, InstId read) const;
  // An undecided data link (may alias) with its tag and explanation: what
  // the two above build.
  static AliasEvidence undecidedPairEvidence(const char* how, const char* detail);
  // For a write published by `signal`: a read after a wait on the signal's
  // word that may read it, with that wait's poll; decidedly when one is.
  // `endOfKernel` when the only wait is one no data access follows (the
  // readers are the next launch, outside the PTX).
  struct Reader {
    InstId poll = -1, read = -1;
    AliasEvidence evidence;
    bool endOfKernel = false;
  };
  Reader readerOf(InstId write, InstId signal) const;
  // readerOf(write, signal).evidence.decided, without a walk of the reads for
  // every write: a read after a wait that decidedly observes the signal
  // decidedly reads the write. The reads of those waits are gathered once per
  // signal and numbered as a set (the signals of one flag share it); the
  // answer is kept per (set, write), so release-missing, scope-too-narrow and
  // every signal of the flag ask each write once (issue 34: NVSHMEM's device
  // image probed signals x writes x reads).
  bool hasDecidedReader(InstId write, InstId signal) const;
  // readerOf(write, signal) finds a read (not only an end-of-kernel wait):
  // some read after a wait on the signal's word that data follows may read
  // the write.
  bool hasReader(InstId write, InstId signal) const;
  // `a` and `b` sit on opposite outcomes of one grid-uniform condition (a
  // kernel parameter that selects one of two modes, issue 34 F4): no launch
  // runs both, so they are never two links of one hazard
  // (model/UniformModes.h). modeCondition: that condition, as text, or "".
  bool exclusiveModes(InstId a, InstId b) const;
  std::string modeCondition(InstId a, InstId b) const;
  // The same for two instructions one block runs (a write and the signal
  // after it, a wait and the read after it): a condition the block's threads
  // share is enough (the block's position, a parameter read at an offset
  // computed from it; UniformModes::exclusiveInBlock).
  bool exclusiveModesInBlock(InstId a, InstId b) const;
  // Whether the partner of a wait is a thread of this block (issue 34, shape
  // S). The partner is another block, unless the flag says otherwise: when
  // the words that the signal and the poll name in two different blocks
  // never meet (one flag per block, `flags[blockIdx.x]` on both sides:
  // MemoryAnalysis::blockSlices answers Apart), no other block of the grid
  // raises this block's flag, and the partner is one of its own threads.
  // For a wait (some in-kernel signal of its word pins it so) and for a
  // signal (some poll of its word does).
  bool partnerInOwnBlock(InstId poll) const;
  bool signalPartnerInOwnBlock(InstId signal) const;
  // MemoryAnalysis::blockSlices of a data pair, a partner's write and a read
  // after the wait, kept per pair (kind only): what the expressions' answer
  // becomes when the partner is another block.
  MemoryAnalysis::BlockSlices::Kind dataSlices(InstId write, InstId read) const;
  // The signal is a strong store or atomic at explicit .sys scope: the
  // kernel's own statement that the host or another device reads what it
  // publishes. Not a volatile store (.sys by the qualifier, not by choice).
  bool isSystemScopeSignal(InstId signal) const;
  // An opaque call (a communication library's put or signal) among whose
  // pointer arguments is one based on the same object as the access's
  // address: the peers' copies of this kernel make the same call, with this
  // rank's address of the buffer (symmetric addressing). -1 when none.
  InstId callPassing(InstId access) const;
  bool callPasses(InstId call, InstId access) const;
  // The same pair, seen as an in-kernel signal for a poll: a flag write
  // through a peer pointer to the same field of another rank's copy of the
  // structure the poll reads its own copy of (vLLM's start barrier: peers
  // write `peer[i]->start[b][rank]`, the rank polls `self->start[b][i]`):
  // the same constant offset and access size, and the same index
  // coefficients. -1 when none.
  InstId peerMirrorSignal(InstId poll) const;
  // `peerAccess` goes through a peer pointer to the same offsets (constant,
  // size, index coefficients) that `ownAccess` reaches through another
  // pointer, one that is decidedly this rank's (peerPointer is No): one field
  // of another rank's copy and of this rank's copy.
  bool isPeerMirror(InstId peerAccess, InstId ownAccess) const;
  // A peer mirror is evidence of another rank's copy only when the peer
  // side's pointer is traced to a peer table (peerPointer is Yes). One the
  // walk lost (Unknown: a pointer stashed in shared memory on two paths, a
  // merge of two loads) is this rank's own copy as well as another's: the
  // signal, data and partner links it carries are undecided
  // (`untraced-pointer`, `untraced-signal-pointer`), as the contract asks of
  // "could not tell" (issue 34, nvCOMP's shape Q).
  bool isDecidedPeerMirror(InstId peerAccess) const;
  // The undecided link of a mirror through an untraced pointer.
  static AliasEvidence untracedMirrorEvidence();
  // isPeerMirror's test of the two pointers (issue 34, NCCL's M): when the
  // peer side's pointer is itself read from a field of a struct reached
  // through the peer pointer (`peers[p]->ring`, `descs[p].ring`: a slot at a
  // constant offset from a pointer read from memory, or a field of a record
  // larger than a pointer in a table), not the peer table's entry itself
  // (`peers[p]`), a rank reaches its own copy of that buffer through the
  // same field of its own struct: the own side's pointer must be read from
  // the same field (one size, the same constant offset, modulo the record
  // size where a slot is indexed). True when the peer side's pointer is a
  // table's entry, or its slot was not traced.
  bool pointersFromMirroredFields(InstId peerAccess, InstId ownAccess) const;
  // requiredScope() with the evidence it rests on: "peer-pointer",
  // "outbound-flag", "sys-signal-on-word" (a .sys signal on the same word)
  // decide .sys; "peer-flags-elsewhere" (the kernel raises flags on peers,
  // and this poll's own word is raised by none of them that the analysis can
  // see) and "sys-signal-on-object" (a .sys signal on the same object, at a
  // word that may or may not be this one) do not.
  struct ScopeEvidence {
    Scope scope = Scope::Gpu;
    bool decided = true;
    std::string how, detail;
  };
  ScopeEvidence requiredScopeEvidence(InstId access) const;
  // The flag pins the partner to this block (partnerInOwnBlock or
  // signalPartnerInOwnBlock): "own-block", .cta, decided. Asked after the
  // off-GPU evidence (a peer pointer, a .sys signal on the word, a peer's
  // mirror), which decides .sys first.
  bool inOwnBlock(InstId access) const;
  static ScopeEvidence ownBlockScope(ScopeEvidence e);

  // --- Tickets (issue 30, shape 1: the last block does the work) -----------
  // A counting read-modify-write of a global word (atom/red add, inc, dec or
  // sub of an integer; not an identity update, not a spin's poll) whose
  // returned value is compared for equality with a count fixed for the
  // launch, other than 0 and all-ones (the count that means "every other
  // block has arrived": gridDim.x - 1, a split count; not a reservation's
  // sentinel or its turn: model/ArrivalCountTest.h) on the way to a
  // conditional branch, through registers and through
  // shared memory (thread 0 stores the decision, the block reads it back
  // after bar.sync). Every block's copy of the RMW counts on the same word:
  // the returned value observes the other blocks' arrivals, with no spin.
  // The ticket is both the signal (for the blocks that count before the
  // last) and the observation (for the last). Sorted.
  const std::vector<InstId>& tickets() const { return tickets_; }
  // The conditional branches a ticket's returned value decides (sorted).
  const std::vector<InstId>& ticketBranches(InstId ticket) const;
  // The writes the partner blocks make before their copy of the ticket:
  // global writes from which the ticket is reachable, the counter's own word
  // and flag writes left out. Sorted; memoized.
  const std::vector<InstId>& ticketPartnerWrites(InstId ticket) const;
  // Reads after a ticket's decision that may read a partner write: reached
  // from the ticket without passing `stop` (an acquire), a spin's poll or the
  // ticket again, never entering a block that dominates the ticket (the next
  // round of a loop), and reachable from one of its branches. At most
  // `limit`, nearest first.
  std::vector<InstId> ticketReads(InstId ticket, const std::function<bool(InstId)>& stop, size_t limit) const;
  // A write before the ticket that some read after its decision may read.
  bool isTicketPublishedWrite(InstId write, InstId ticket) const;
  // The partner write a read after the ticket's decision reads, decidedly
  // when one is (aliasEvidence).
  Link ticketWriteRead(InstId read, InstId ticket) const;

  // A device-to-host FIFO push's trigger (issue 30, shape 9): a volatile,
  // relaxed or stronger store (or a .sys atomic) into a ring behind a kernel
  // parameter, at a slot indexed by the value a counting atomic returned (the
  // reservation of a head counter), that no wait of this kernel reads: the
  // host or a proxy thread polls it. The trigger is the signal; the
  // reservation is bookkeeping.
  bool isFifoTrigger(InstId inst) const;

  // --- Ordering ------------------------------------------------------------
  // An ordering operation that acts as an acquire for the executing thread:
  // an acquire fence, or an opaque call (see opaqueCallMayFence).
  bool isAcquire(InstId inst) const;
  // Every instruction for which isAcquire holds, sorted (a walk's `mayStop`).
  const std::vector<InstId>& acquirePoints() const;
  // "A release for this signal", the one definition release-missing and
  // scope-too-narrow share: a release fence, an opaque call, or (when the
  // signal is an RMW) a release store or RMW on the signal's own word earlier
  // on the path: the signal continues that release's release sequence.
  bool releasesFor(InstId inst, InstId signal) const;
  // Every instruction for which releasesFor may hold, for any signal, sorted
  // (a backward walk's `mayStop`).
  const std::vector<InstId>& releasePoints() const;
  // The scope an ordering operation acts at (a scope-less fence counts as
  // .gpu, an opaque call as .sys).
  Scope scopeOf(InstId inst) const;
  // The scope a flag access's partner needs: .sys when the evidence says the
  // partner is off this GPU (the access goes through a peer pointer,
  // goesThroughPeerPointer; a .sys store or atomic on the signalling side of
  // the same word; a poll in a kernel that raises flags through peer
  // pointers; an outbound flag), .gpu otherwise. A pointer read from a struct
  // field or from a table indexed by the block is no evidence, and a .sys
  // acquire by the waiter alone is over-strong, not evidence.
  Scope requiredScope(InstId access) const;

  // --- Named facts (each from a real-code shape; tests/unit/ModelProtocolTest.cpp) ---
  // A decrement of a polled counter after waiting on it: the arrivals taken
  // back for the next launch (CUTLASS distributed GEMM's full_barrier). Nobody
  // waits for it: not a signal.
  bool isConsumingDecrement(InstId inst) const;
  // A read-modify-write that leaves the word as it was (atom.add or .or or
  // .xor of 0, atom.and of all ones, atom.cas whose new value is its compare
  // value, atomicCAS(f, 1, 1)): a read through an atomic, the poll of
  // DSLs without an atomic load (Triton's tl.atomic_add(flag, 0)), never an
  // update, a signal or an arrival.
  bool isIdentityUpdate(InstId inst) const;
  // --- Counter resets (issue 30, shape 5) -----------------------------------
  // The constant a store or an exchange writes (`c.store(0)`, `atomicExch(f,
  // 0)`), or nullopt.
  std::optional<int64_t> storedConstant(InstId write) const;
  // A store or exchange of a constant to a polled word on which no spin that
  // may poll the word leaves (model/SpinLoops.h exitOnValue: a count reset to
  // 0 where the waiters wait for it to reach gridDim.x). It satisfies no
  // waiter: not a signal (it publishes nothing to anyone who waits on it).
  // counter-reset asks whether it can come while a waiter still needs the
  // value it overwrites.
  bool isPolledWordReset(InstId write) const;
  // The polls that may read the word `write` writes (spin polls; sorted).
  const std::vector<InstId>& pollsOfWord(InstId write) const;

  // A floating-point atomic or store: a reduction into a workspace (split-K,
  // stream-K), never a flag.
  bool isFloatingPointData(InstId inst) const;
  // A call left opaque after inlining (an extern function such as NVSHMEM's
  // nvshmemi_transfer_syncapi_update_mem, whose body with its __threadfence()
  // lives in libnvshmem_device.a): it may fence at any scope, so it is not
  // judged as missing one.
  bool opaqueCallMayFence(InstId inst) const;
  // A load of memory no write of this kernel touches (ld.global.nc: the
  // compiler's promise for `const __restrict__`/__ldg), not behind a pointer
  // read from memory: host-written before the launch, immutable during it.
  bool readsImmutableInput(InstId read) const;
  // A non-coherent load (ld.global.nc) of data written while the kernel
  // runs: an object this function writes, or a buffer behind a pointer read
  // from memory. No fence makes it see the partner's data.
  bool isStaleProneNonCoherentRead(InstId read) const;
  // The pointers `a` and `b` go through were read from two different slots
  // of one record: the same base pointer, offsets that no values of their
  // indices make equal (different constant fields of one struct, `s->inbound`
  // and `s->expected`; different fields of the records of a table,
  // `boxes[i].inbound` and `boxes[j].expected`, offsets that differ modulo
  // the record size; NVSHMEM's `sync_counter` and `psync_pool` in its
  // __constant__ device state). Two slots hold two pointers: distinct
  // objects, the rule model/Memory applies to the fields of a by-value struct
  // parameter. The same field of a table read at a variable index (ranks
  // index a peer table with their rank) may be the same slot for two
  // threads: that is the case alias() keeps coarse.
  bool pointersFromDistinctFields(InstId a, InstId b) const;
  // The two accesses go through two entries of one pointer table (read at one
  // base and one constant offset, at indices that may differ): on some rank
  // the entries may be one buffer, so the words meet only where the offsets
  // from the entries do (MemoryAnalysis::offsetsApart; the slots a barrier
  // backfills beyond the grid, `flags[tid] + 8 * s + rank`, against the one
  // it polls, `flags[rank] + 8 * blockIdx.x + t`).
  bool entriesOfOneTable(InstId a, InstId b) const;
  // entriesOfOneTable's case of a table whose base is itself read at an
  // index the value analysis keeps as a term (`def:<load>`): the two
  // accesses' pointers carry one model/Memory name (one load expression).
  bool readsOfOneSlotExpression(InstId a, InstId b, const AbstractValue& va, const AbstractValue& vb) const;

  // The two accesses go through pointers that readsOfOneSlotExpression
  // compares (two reads of one slot expression of a table whose base is
  // itself read at an index): release-missing's ticket rule keeps taking a
  // count and a flag reached so for one word, as before that rule.
  bool throughOneSlotExpression(InstId a, InstId b) const;
  // The two accesses go through the pointer of one slot that the kernel
  // cannot write: a word at one constant address (no index) in constant
  // space, or read non-coherently (ld.global.nc states that the kernel does
  // not write it). Every thread of the launch reads the same
  // pointer there, so its offsets compare directly: accesses whose offsets
  // never meet (MemoryAnalysis::offsetsApart: different fields of the
  // records of one table, `table[i].lock` against `table[j].ready`, apart
  // modulo the record size whatever i and j are) touch different bytes. On
  // another rank the slot holds that rank's pointer, one buffer or another,
  // as for entriesOfOneTable (issue 34, NVSHMEM's queue-pair tables).
  bool throughOneFixedPointer(InstId a, InstId b) const;
  // Memory's decided "same bytes" (`same-buffer`, `same-object`) for two
  // accesses through one pointer read from memory, at offsets that under one
  // value of that pointer never meet (MemoryAnalysis::alias says No: two
  // fields of the records of one table, `q[i].reserved` against
  // `q[j].consumed`, apart modulo the record size). They meet only if two
  // reads of the pointer's slot give two pointers, which the PTX does not
  // show (nor that they give one: the kernel may write the slot through a
  // pointer the analysis cannot name): undecided, `reread-pointer` (issue
  // 34, NCCL's AlltoAll_LL queue descriptors, B''). Called by aliasEvidence
  // on Memory's decided evidence; leaves any other evidence as it is.
  void undecideRereadPointer(AliasEvidence& evidence, InstId a, int operandA, InstId b, int operandB,
                             bool withDetail) const;
  // The access goes through a peer pointer: a pointer read from a table at
  // an index that varies from rank to rank (any index term other than the
  // block's position: a rank or peer parameter, a loop over peers, the
  // thread index of `if (tid < world) flag[tid]`), or from a struct reached
  // through such a pointer; also a pointer read from memory that the value
  // analysis cannot trace to its load (taken as peer, as before). A pointer
  // read from a struct field, or from a table indexed by the block
  // (`boxes[blockIdx.x]`), is not: such tables hold one entry per block of
  // this launch. Nor is one read from a table indexed by a group of blocks
  // (Peer::BlockGroup): that decides nothing. Evidence of an off-GPU partner
  // for requiredScope, the peer-table alias, peer mirrors and peer memory.
  bool goesThroughPeerPointer(InstId access) const;
  // The same question with its evidence (issue 34 F3): Yes when the pointer
  // is read from a table at an index that is not the block's position (a
  // rank, a peer, a loop over peers, the thread index), or from a field of a
  // struct reached through such a pointer; No when every load the pointer
  // may come from reads a named slot at block-position indices only (a
  // parameter field, also through the local copy nvcc makes of the
  // parameters); Unknown when a load or its slot could not be traced.
  // BlockGroup (issue 34, NCCL's GIN descriptors) when the index is computed
  // from the block's position alone, with constants and launch-uniform values
  // as divisors, moduli, shifts, masks or strides (`ctx[blockIdx.x % n]`, a
  // choice between two such computations), at every level: the same indices
  // on every rank, so an entry per group of this launch's blocks or a peer per
  // group (`channels[blockIdx.x % npeers]`) alike; which one, only the table's
  // contents say. A rank added to the block index (`(rank + blockIdx.x) %
  // world`) makes it Yes. goesThroughPeerPointer is Yes or Unknown.
  // Record (issue 34, NVSHMEM's queue-pair descriptors) when the pointer is
  // one field of a record larger than a pointer, in a table at an index that
  // is not the block's position (`qps[pe * n + warp % n].cq`), and the kernel
  // writes into that table (a lock, a counter of the records): working state,
  // a per-destination descriptor that holds this GPU's queues or a peer's
  // buffers; the PTX does not show which, so it decides nothing, as
  // BlockGroup. Several definitions of the record's address (two tables, a
  // warp broadcast of lane 0's choice) are each looked at. A table of pointers
  // at such an index (`peers[next]`, `ptrs[rank]`, `heap_base[pe]`: the index
  // steps by the pointer's size), or records the kernel only reads (an address
  // book set up before the launch, `slots[2 * peer]`), is how peer mappings
  // are kept: Yes.
  enum class Peer : int8_t { No, Yes, Unknown, BlockGroup, Record };
  Peer peerPointer(InstId access) const;
  // The same, also for an access whose address the identity walk loses (a
  // pointer carried around a loop): the pointer its memory object was read
  // through is a peer-table entry.
  bool readsThroughPeerPointer(InstId access) const;
  // A load, after the wait, of the very word the poll read, or of a pointer
  // the poll reached it through: the same abstract address (same object,
  // offset and index terms; for a pointer read from memory, the same field of
  // the same base read again) and no wider. It reads the flag (or its
  // address) again, not data the flag guards (`while (ld_volatile(mb->inbound)
  // == 0); v = ld_volatile(mb->inbound);` loads mb->inbound and *mb->inbound
  // once more).
  bool rereadsPolledWord(InstId read, InstId poll) const;
  // An address translated into a peer's mapping: a pointer read from a table
  // plus an offset the value analysis cannot bound (NVSHMEM's
  // `peer_heap_base[pe] + (local - heap_base)`, an IPC base plus a heap
  // offset). It may reach any object on the peer, so a flag raised through
  // it may be the word a poll through a pointer read from memory waits on:
  // the poll's partner is in this kernel.
  bool isTranslatedPeerAddress(InstId inst) const;
  // An opaque call whose pointer arguments all point into the object the
  // poll reads (NVSHMEM's transfer_amo_nonfetch on psync: the barrier's
  // signal on the remote path): it raises the flag, it delivers no data.
  bool isFlagOnlyCall(InstId call, InstId poll) const;
  // A store to a counter that only a wait on that counter leads to (the
  // wait's loop dominates it): a reset after the arrivals, not an
  // initialization racing with them (TensorRT-LLM's LamportFlags::update in
  // FlashInfer's MoE all-reduce: block 0 waits until the arrival counter
  // reaches gridDim.x, then stores 0; the next launch's arrivals follow in
  // stream order). The wait is taken to observe every arrival.
  bool isResetAfterWait(InstId store) const;
  // An initialization by one thread of one block (`store`, tid.x pinned by
  // its guards) that a software group barrier orders before `update` in
  // every other block: the storing thread releases at .gpu or wider and
  // arrives on a counter, every block's thread of that index spins on the
  // counter with an acquire, and a __syncthreads() follows; from the nearest
  // block that dominates both the store and the update, no such crossing
  // comes before the store and one comes before the update (FlashInfer's multi-CTA radix top-k: CTA 0 of a group clears
  // output_counter, the group's AdvanceRadixGroupBarrier, then every CTA's
  // atomicAdd; model/GroupBarriers.cpp). The spin is taken to wait for every
  // block's arrival of the same crossing.
  bool isPublishedByGroupBarrier(InstId store, InstId update) const;
  // --- Copies of polled words (issue 34, NCCL's U-credit; model/PolledCopies.cpp) ---
  // A store that writes a value some polled word held: a scalar store (of a
  // write some thread makes) whose stored register's every reaching
  // definition, through moves, merges and an inlined call's parameter
  // passing, is a scalar load of the same size of a word a spin polls (the
  // poll itself, whose value the loop exits on, or the first poll peeled
  // before a rotated loop: isPollAccess), not of the stored word. As data, it
  // hands nothing: a data link whose write is one is undecided
  // (polledCopyEvidence). Found once per function.
  bool isPolledCopyStore(InstId store) const;
  // Every write of the function that may touch the access's word (alias() is
  // not No) is a polled copy store, and there is one; no opaque call may
  // write it (a call's stores are not seen). The word then only ever holds
  // values of polled words (a cached consumer index, stored back after a
  // spin on the index): a stale copy is an earlier value of a polled word,
  // as a read of that word would give. Reading it is no guarded read (a
  // read of the polled word is none either), storing it publishes no data.
  // An atomic on the word, a store of any other value, a vector store, an
  // async copy: not a copy. Memoized per access.
  bool isCopyOfPolledWord(InstId access) const;
  // A read whose value only decides whether to read the copied word itself:
  // it is used (through register computations) only to decide branches, none
  // of them a spin's exit, and one of those branches leads to a load of a
  // word that a polled copy store of this word stored from (a cached
  // consumer index checked for room before polling the index). A stale value
  // there only sends the thread to the polled word. A value used as data, as
  // an address, or as a spin's target (`while (signal < offset + 1)`: a
  // stale baseline ends the wait early) is no cache check.
  bool isCacheCheck(InstId read) const;
  // The write is a polled copy store and the read a cache check: the pair
  // hands no data (polledCopyEvidence).
  bool isCachedCopyPair(InstId write, InstId read) const;
  // A wait that no data access of the kernel follows (the barrier at the end
  // of CUTLASS's distributed GEMM full_barrier, a final grid barrier): the
  // data it guards is used after the kernel, by the next launch, so every
  // write before its signal is published.
  bool isEndOfKernelWait(InstId poll) const;

 private:
  // isPolledCopyStore's walk: `reg` at `at` holds a value a polled word held.
  bool holdsPolledValue(ValueReg reg, InstId at, InstId store, int64_t size, int depth,
                        std::vector<std::pair<ValueReg, InstId>>& seen, std::vector<InstId>& sources) const;
  bool computePolledCopyStore(InstId store, std::vector<InstId>& sources) const;
  bool computeCacheCheck(InstId read) const;
  const std::vector<InstId>& usesOf(ValueReg reg) const;  // instructions reading `reg` (data or guard)
  mutable std::optional<std::vector<std::vector<InstId>>> registerUses_;
  mutable std::vector<int8_t> cacheCheck_;                // per instruction: -1 not asked, 0, 1
  const std::vector<InstId>& polledCopyStores() const;       // every write isPolledCopyStore holds at, sorted
  mutable std::optional<std::vector<InstId>> polledCopyStores_;
  mutable std::vector<int8_t> copyOfPolledWord_;              // per instruction: -1 not asked, 0, 1
  const MemoryObject& root(InstId inst) const;  // MemoryAnalysis::rootOf of the access's address
  bool disjointFields(InstId a, int operandA, InstId b, int operandB) const;
  // The load that read the pointer an access's address is based on (the
  // Loaded base of its value), or -1.
  InstId pointerLoad(InstId access) const;
  InstId walkToPointerLoad(InstId access) const;
  // The pointer load reads a peer-table entry (see goesThroughPeerPointer).
  bool isPeerPointerLoad(InstId pointerLoad, int depth) const;
  Peer peerPointerLoad(InstId pointerLoad, int depth) const;
  // A slot whose address register is assigned on several paths: Record
  // when every definition gives a record field (see Peer::Record).
  Peer mergedRecordSlot(InstId pointerLoad, int operand, int depth) const;
  Peer recordDefinitions(ValueReg reg, InstId at, int64_t size, int depth, int& budget) const;
  bool broadcastPointer(InstId def, ValueReg& source, InstId& unpack) const;
  bool writesIntoTable(InstId slotLoad) const;
  mutable std::unordered_map<InstId, bool> writesIntoTable_;
  mutable std::optional<std::unordered_map<ValueReg, std::vector<InstId>>> writesThrough_;  // writesIntoTable's
  // Whether the pointer load's slot is indexed by a group of blocks only (see
  // Peer::BlockGroup), and the load that read the table's own pointer (-1: a
  // named table, a kernel parameter or a global symbol); memoized.
  struct BlockGroupIndex {
    bool grouped = false;
    bool window = false;  // the block's position shifted by launch-uniform values, unwrapped (`first + blockIdx.y`)
    InstId table = -1;
  };
  const BlockGroupIndex& blockGroupIndex(InstId pointerLoad) const;
  mutable std::unordered_map<InstId, BlockGroupIndex> blockGroupIndex_;
  mutable std::unordered_map<InstId, int8_t> indexKindOfDefinition_;  // blockGroupIndex's classification per definition
  bool isSignalCandidate(InstId inst) const;
  bool isPlainStoreSignal(InstId inst) const;
  bool sameAddressShape(InstId a, InstId b) const;
  // isPublishedByGroupBarrier's walk (model/GroupBarriers.cpp).
  void walkGroupBarrierPhases(BlockId block, InstId from, InstId poll, int64_t c, int8_t firstPhase,
                              std::vector<int8_t>& lowestAtBarrier) const;
  // Some read-modify-write of the function may be on the poll's word (an
  // arrival a group barrier's crossing needs); memoized per poll.
  bool pollMayHaveArrivals(InstId poll) const;
  mutable std::unordered_map<InstId, bool> pollMayHaveArrivals_;
  bool isLaunchValuePublish(InstId inst) const;
  bool isProtocolStateOfOutboundFlag(InstId write, InstId signal) const;
  bool mayBeWrittenByKernel(InstId read) const;  // memoized
  bool computeMayBeWrittenByKernel(InstId read) const;
  // Some signal of this kernel may write the polled word: the partner is
  // another instance of the kernel (memoized).
  bool hasPartnerInKernel(InstId poll) const;
  // The flag writes of this kernel that may raise the polled word: signals
  // on it, flags raised through a translated peer address when the poll
  // reads through a pointer read from memory, and for a poll that carries
  // its payload (a vector packet) every store that may write the word.
  const std::vector<InstId>& inKernelSignalsFor(InstId poll) const;
  std::vector<InstId> findInKernelSignals(InstId poll) const;
  bool carriesPayload(InstId poll) const;
  bool mayBeReadAfterWait(InstId write, InstId signal) const;
  // `read` may read what `write` wrote (an opaque call: anything not
  // provably immutable; a non-coherent read: only a write through its own
  // root, or any write when the root is a loaded pointer).
  bool mayReadWrite(InstId read, InstId write, bool keepNo = true) const;
  // The register operand was defined by a volatile, relaxed or stronger
  // load: a flag or counter value (pointers are read with weak loads).
  bool isFlagValue(InstId at, int operand) const;

  const FunctionModel& fn_;
  const MemoryAnalysis& memory_;
  std::vector<SpinLoop> spins_;
  std::vector<int32_t> spinOfPoll_;       // per instruction: index into spins_, or -1
  std::vector<InstId> polledWords_;       // every poll, sorted
  std::vector<char> pollAccess_;          // per instruction: isPollAccess
  std::vector<char> peeledPoll_;          // per instruction: isPeeledPoll
  std::vector<InstId> writes_;            // every global write of the function that some thread makes
  std::vector<InstId> globalWrites_;      // every global write, those no thread makes too
  std::vector<InstId> signals_, outboundSignals_;
  std::vector<InstId> tickets_;  // see tickets()
  std::vector<InstId> reservations_;  // counting atomics that return a value (isFifoTrigger)
  std::unordered_map<InstId, std::vector<InstId>> ticketBranches_;
  mutable std::unordered_map<InstId, std::vector<InstId>> ticketPartnerWrites_;
  mutable std::unordered_map<InstId, std::vector<InstId>> ticketReadsAll_;
  // (ticket, one of its branches) -> the blocks each edge reaches (ticketReads).
  mutable std::map<std::pair<InstId, InstId>, EdgeReach> ticketBranchSides_;
  void findTickets();
  std::vector<InstId> calls_;  // opaque calls
  std::vector<InstId> translatedFlagWrites_;  // flag writes through isTranslatedPeerAddress
  std::vector<InstId> systemSignalling_;  // .sys signal candidates (no poll: the signalling side)
  bool raisesPeerFlags_ = false;          // a flag store or atomic through a peer pointer
  struct AfterWait {
    bool computed = false;
    std::vector<InstId> guardedReads;  // reads after the wait that it guards
    std::optional<std::vector<InstId>> sortedGuardedReads;  // guardedReadsAfter
    bool dataFollows = false;          // some data access follows the wait
  };
  const AfterWait& afterWait(InstId poll) const;
  mutable std::vector<AfterWait> afterWait_;  // per entry of polledWords_
  // Per poll whose spin leaves on other polls too: the blocks reached from it
  // without such an exit (reachedAfterObservation).
  mutable std::unordered_map<InstId, std::vector<char>> observedReach_;
  // Per poll: the blocks its observation reaches only on the first turn of a
  // turn word (model/FirstTurnWaits.h; empty when it is no turn wait).
  mutable std::unordered_map<InstId, std::vector<char>> firstTurnBlocks_;
  bool readsOnFirstTurn(const SpinLoop& spin, InstId read, InstId poll) const;
  std::vector<char> dataRead_;                 // per instruction: isDataRead or isDataUpdate
  std::vector<uint32_t> dataReadRank_;         // per data read: its place among them (isGuardedRead's tables)
  uint32_t dataReadCount_ = 0;
  mutable std::vector<int8_t> writtenByKernel_;  // per instruction: -1 unknown, 0, 1
  mutable std::unordered_map<InstId, bool> partnerInKernel_;
  // partnerWrites before the filter of flag-only calls: the writes and calls
  // before some signal of a set of signals (sorted), kept per set (the polls
  // of one word share it): their set's number, and the calls among them.
  struct BeforeSignals {
    uint32_t all = 0;
    std::vector<InstId> calls;
  };
  BeforeSignals computeBeforeSignals(const std::vector<InstId>& signals) const;
  mutable std::map<std::vector<InstId>, BeforeSignals> beforeSignals_;
  std::optional<MemoryLocation> indexedWord(InstId inst) const;
  WordIndex pollIndex_, signalIndex_;
  // Memoized answers (see alias, pollsOf, guardedReadMayRead).
  Alias computeAlias(InstId a, InstId b) const;
  const std::vector<InstId>& pollsOf(InstId signal) const;
  bool guardedReadMayRead(InstId poll, InstId write) const;
  // alias, aliasFacts and writeReadEvidence, memoized in one table: one
  // entry per unordered pair {lo, hi} (lo <= hi), since the three are asked
  // of the same pairs (aliasFacts asks alias, writeReadEvidence both). Its
  // 32 bits (0 in a field: not asked yet):
  //   0-2    alias(lo, hi) + 1
  //   3-12   aliasFacts(lo, hi): 1 | result << 1 | decided << 3 | how << 4
  //          (how: index in aliasHows_, under kPairHows)
  //   13-22  aliasFacts(hi, lo), the same
  //   23-26  writeReadEvidence(lo, hi) (see there)
  //   27-30  writeReadEvidence(hi, lo)
  // Three maps of millions of pairs each (NVSHMEM's put-with-signal dispatch)
  // were a third of its function's memory (issue 35).
  static constexpr unsigned kPairHows = 64;
  mutable PairTable<uint32_t> pairs_;
  uint32_t pairBits(InstId lo, InstId hi) const;
  void setPairBits(InstId lo, InstId hi, uint32_t mask, uint32_t bits) const;
  mutable PairMap<uint32_t> aliasEvidence_;                 // aliasEvidence(a, b), memoized: its index in
  mutable std::deque<AliasEvidence> aliasEvidenceStore_;  // (references stay valid)
  mutable std::deque<std::string> aliasHows_;  // each `how` aliasFacts met, once (views stay valid)
  // readerOf's answer for one (write, read) pair: whether the read may read the
  // write, whether that is decided, and how (aliasEvidence, an opaque call, a
  // peer mirror), memoized; writeReadDetail rebuilds the evidence.
  struct PairEvidence {
    // BlockSlices: partnerPair's, never kept in the pair table.
    // BlockDistance: pairAtDistance's, never kept either.
    enum class How : uint8_t { Alias, OpaqueCall, PeerMirror, StrongPair, PolledCopy, BlockSlices, BlockDistance };
    bool mayRead = false;
    bool decided = false;
    How how = How::Alias;
  };
  PairEvidence writeReadEvidence(InstId write, InstId read) const;
  // A pair whose addresses decidedly meet, but whose link is undecided all
  // the same: PolledCopy when the write is a polled copy store
  // (isCachedCopyPair), else StrongPair (isStrongPair), else none. Asked by
  // writeReadEvidence, partnerWriteEvidence and ticketWriteRead; the
  // evidence of each is undecidedHowEvidence's.
  std::optional<PairEvidence::How> undecidedPairHow(InstId write, InstId read) const;
  static AliasEvidence undecidedHowEvidence(PairEvidence::How how);
  // Who the partner of a wait or a signal is: another block (`other`), at
  // a known distance when the flag says so (flagDistance: chained blocks,
  // model/ChainedBlocks.cpp, with pairAtDistance and commonDistance).
  struct PartnerBlock {
    bool other = false;
    MemoryAnalysis::BlockDistance at;
  };
  PartnerBlock partnerBlockOfPoll(InstId poll) const;
  PartnerBlock partnerBlockOfSignal(InstId signal) const;
  MemoryAnalysis::BlockDistance flagDistance(InstId signal, InstId poll) const;
  static AliasEvidence flagDistanceEvidence(MemoryAnalysis::BlockDistance d);
  mutable std::unordered_map<InstId, MemoryAnalysis::BlockDistance> polledDistance_, signalDistance_;
  // writeReadEvidence for a partner in another block (`partner.other`): a
  // read in this block's slice cannot read another block's slice (Apart: the
  // read does not read the write), or the pair's link is undecided
  // (BlockSlices); for the block at a distance, pairAtDistance's answer.
  PairEvidence partnerPair(InstId write, InstId read, const PartnerBlock& partner) const;
  PairEvidence pairAtDistance(InstId write, InstId read, MemoryAnalysis::BlockDistance at) const;
  // The partner's write may be what the read reads (mayReadWrite, per block).
  bool partnerMayRead(InstId read, InstId write, const PartnerBlock& partner, bool keepNo = true) const;
  bool blockSlicesApart(InstId write, InstId read, bool otherBlock) const;
  // A partner of the reader's own block whose write precedes the block's
  // first whole-CTA barrier, read after one: the barrier orders the pair
  // (model/FirstBarrier.h), whatever the flag does.
  bool orderedByFirstBarrier(InstId write, InstId read, bool otherBlock) const;
  mutable std::shared_ptr<const FirstBarrier> firstBarrier_;
  // A partner of the signal's own block (the flag pins it) whose every path
  // from `write` to `signal` passes a whole-CTA barrier: a waiter that sees
  // the signal arrived at that barrier before it (the barrier completed
  // before the signal), so the barrier, not the flag, orders the write for it.
  bool barrierBeforeSignal(InstId write, InstId signal) const;
  mutable PairTable<bool> barrierBeforeSignal_;
  mutable PairTable<uint8_t> dataSlices_;  // dataSlices + 1, per (write, read)
  mutable std::unordered_map<InstId, bool> partnerInOwnBlock_, signalPartnerInOwnBlock_;
  bool flagPinsBlock(InstId signal, InstId poll) const;
  // partnerInOwnBlock and signalPartnerInOwnBlock: whether flagPinsBlock
  // holds of `op` and any of the operations `others` names, kept in `cache`.
  using OtherSide = const std::vector<InstId>& (ProtocolModel::*)(InstId) const;
  bool flagPinnedByAny(std::unordered_map<InstId, bool>& cache, InstId op, OtherSide others, bool opIsPoll) const;
  // The one distance at which every operation `others` names meets `op`'s
  // flag (none when one meets it in this block, or two distances differ).
  MemoryAnalysis::BlockDistance commonDistance(std::unordered_map<InstId, MemoryAnalysis::BlockDistance>& cache,
                                               InstId op, OtherSide others, bool opIsPoll) const;
  AliasEvidence writeReadDetail(InstId write, InstId read, PairEvidence pair,
                                MemoryAnalysis::BlockDistance at = {}) const;
  // hasDecidedReader: per signal, the number of its set of decidedly guarded
  // reads; the sets (sorted, distinct), by number; the answer per (set, write).
  uint32_t decidedReadSet(InstId signal) const;
  mutable std::unordered_map<InstId, uint32_t> decidedReadSetOf_;
  mutable std::map<std::vector<InstId>, uint32_t> decidedReadSetIds_;
  mutable std::vector<const std::vector<InstId>*> decidedReadSets_;
  mutable PairMap<bool> decidedReader_;
  mutable std::shared_ptr<UniformModes> modes_;  // exclusiveModes, built on first use
  // Per opaque call: the base (kind, name) of each pointer argument (callPasses).
  mutable std::unordered_map<InstId, std::vector<std::pair<int, std::string>>> callArgumentBases_;
  // Per access: the base (kind, name) of its address, or none when the value
  // is unknown or has no base (callPasses asks it for every call and read).
  mutable std::unordered_map<InstId, std::optional<std::pair<int, std::string>>> accessBase_;
  // The signals of one flag share their polls, the polls of one word their
  // signals: each distinct list kept once (model/InternedLists.h).
  mutable ListMemo pollsOfSignal_;
  mutable ListMemo pollsOfWord_;     // pollsOfWord, memoized
  mutable ListMemo signalsForPoll_;  // inKernelSignalsFor
  mutable PairMap<bool> guardedReadMayRead_;
  bool mayReadPartnerWrites(InstId read, InstId poll) const;
  // partnerWriteRead's memo: per (read, set of partner writes), the first
  // write the read may read and the first whose link is decided (-1: none).
  struct PartnerChoice {
    InstId first = -1;
    InstId firstDecided = -1;
  };
  PartnerChoice partnerChoice(InstId read, InstId poll) const;
  // partnerWriteRead's write: a call passed the flag and the read's buffer
  // (`viaCall`), else the first decided write the wait's modes allow, else
  // the first write they allow (-1: none).
  struct PartnerPick {
    InstId inst = -1;
    bool viaCall = false;
  };
  PartnerPick pickPartnerWrite(InstId read, InstId poll) const;
  // The partner write's link for a wait (`poll`): the pair's link
  // (partnerPairEvidence, partnerPairDecided), undecided when the write
  // precedes no signal the wait observes (signalledToWait).
  AliasEvidence partnerWriteEvidence(InstId write, InstId read, const PartnerBlock& otherBlock, InstId poll) const;
  bool partnerWriteDecided(InstId write, InstId read, const PartnerBlock& otherBlock, InstId poll) const;
  AliasEvidence partnerPairEvidence(InstId write, InstId read, const PartnerBlock& otherBlock) const;
  bool partnerPairDecided(InstId write, InstId read, const PartnerBlock& otherBlock) const;
  // --- Which signal publishes a partner write (model/SignalledWrites.cpp) --
  // The partner's data for a wait is a write it made before raising the
  // polled flag: a write that precedes, in its mode of the launch, no signal
  // whose link with the polled word is decided (only signals the analysis
  // could not relate to that word, through a pointer it cannot name) is
  // handed to the waiter only if one of those is the flag, which rests on
  // "could not tell" (`unrelated-signal`). Where no signal of the word is
  // decided, every partner write is asked as before (the signal's link is
  // the undecided one).
  bool signalledToWait(InstId write, InstId poll) const;
  static AliasEvidence unrelatedSignalEvidence();
  // The signals of the polled word whose link with it is decided (the kinds
  // observedSignal takes as decided among the kernel's signals), in the
  // wait's mode: their set's number (kAnySignal when there is none).
  uint32_t decidedSignalSet(InstId poll) const;
  static constexpr uint32_t kAnySignal = 0;
  mutable std::unordered_map<InstId, uint32_t> decidedSignalSetOf_;
  mutable std::map<std::vector<InstId>, uint32_t> decidedSignalSetIds_;  // numbered from 1
  mutable std::vector<const std::vector<InstId>*> decidedSignalSets_;    // by number - 1
  mutable PairMap<bool> signalledToWait_;  // (write, decided set) -> signalledToWait
  // partnerChoice's key: the pair (partnerWriteSet, decidedSignalSet), numbered.
  uint32_t partnerChoiceSet(InstId poll) const;
  mutable std::map<std::pair<uint32_t, uint32_t>, uint32_t> partnerChoiceSets_;
  bool mayBeDecidedPair(InstId write, InstId read) const;  // a necessary condition of a decided pair
  uint32_t partnerWriteSet(InstId poll) const;  // the number of partnerWrites(poll)'s set
  mutable PairMap<PartnerChoice> partnerChoice_;
  mutable std::unordered_map<InstId, uint32_t> partnerWriteSetOf_;
  static constexpr InstId kNotWalked = -2;
  mutable std::vector<InstId> pointerLoad_;                    // per instruction: pointerLoad, or kNotWalked
  // pointerTableOf: per instruction, 1 + the number of its table (0: not
  // asked); each distinct table once, numbered (kNoTable: the empty name).
  uint32_t pointerTableOf(InstId inst, int operand) const;
  static constexpr uint32_t kNoTable = 0;
  mutable std::vector<uint32_t> pointerTable_;
  mutable std::unordered_map<std::string, uint32_t> pointerTableIds_;
  mutable std::vector<const std::string*> pointerTables_;
  // root(): per instruction, 1 + the number of its root in roots_ (0: not
  // asked); each distinct root once (an object per instruction was 80 bytes
  // each, 1.8 MB of a 22,000-instruction function; issue 35).
  mutable std::vector<uint32_t> rootOf_;
  mutable std::deque<MemoryObject> roots_;
  mutable std::map<std::tuple<int, int, size_t, std::string>, uint32_t> rootIds_;  // (kind, space, choices, name)
  mutable std::map<std::vector<InstId>, uint32_t> partnerWriteSets_;  // each distinct partnerWrites set, numbered
  mutable std::vector<const std::vector<InstId>*> partnerWriteLists_;  // partnerWriteSets_' keys, by number
  uint32_t numberPartnerWrites(std::vector<InstId> writes) const;
  mutable PairMap<bool> readsPartnerWrites_;  // (read, set) -> may read one of them
  // Per-poll and per-access answers the checks ask again for every finding
  // and every walk (issue 34): observedSignal, peerMirrorSignal,
  // requiredScopeEvidence, and isGuardedRead as two bits per (poll, data
  // read) once a poll is asked (0 not asked, 1 no, 2 yes), while the tables
  // stay under kGuardedMemoBytes in all.
  mutable std::optional<std::vector<InstId>> acquirePoints_, releasePoints_, dataReads_, peerFlagWrites_;
  mutable std::vector<int8_t> peer_;  // per instruction: peerPointer, or -1 before it is asked
  Peer computePeerPointer(InstId access) const;
  mutable std::unordered_map<InstId, Link> observedSignal_;
  mutable std::unordered_map<InstId, InstId> peerMirrorSignal_;
  mutable std::unordered_map<InstId, ScopeEvidence> requiredScope_;
  static constexpr size_t kGuardedMemoBytes = size_t(64) << 20;
  mutable std::unordered_map<InstId, std::vector<uint8_t>> guardedRead_;
  mutable size_t guardedReadBytes_ = 0;
  bool computeGuardedRead(InstId read, InstId poll) const;
  Link computeObservedSignal(InstId poll) const;
  ScopeEvidence computeRequiredScopeEvidence(InstId access) const;
};

// The protocol model of a function built by buildProgram.
const ProtocolModel& protocolOf(const FunctionModel& fn);

bool hasAcquireSemantics(const MemoryEffect& e);  // .acquire / .acq_rel / .sc
bool hasReleaseSemantics(const MemoryEffect& e);  // .release / .acq_rel / .sc
bool isAcquireFence(const FunctionModel& fn, InstId inst);  // fence.{sc,acq_rel,acquire}, membar
bool isReleaseFence(const FunctionModel& fn, InstId inst);  // fence.{sc,acq_rel,release}, membar
// A read of global or generic memory that a wait may guard: loads (not
// atomics), and async copies out of global memory (cp.async.bulk into shared
// memory, Ampere cp.async), whose read is their source (issue 30, shape 4).
bool isDataRead(const FunctionModel& fn, InstId inst);
// A floating-point atomic or reduction on global or generic memory
// (`red.global.add.f32`, `atom.add.noftz.f16x2`): arithmetic on data, never
// a protocol's flag or count. It reads the bytes it updates, so a write the
// partner published before its signal must be ordered before it (release-
// missing: a zeroing write that lands after another block's add erases the
// add). It is not a guarded read for acquire-missing: nothing of it is
// cached in L1, and whether an atomic may be performed before the relaxed
// poll that decides it is disputed.
bool isDataUpdate(const FunctionModel& fn, InstId inst);
// The operand of the global memory traffic the partner model reasons about:
// an async copy's source where it reads global memory, else the address.
int protocolAddress(const FunctionModel& fn, InstId inst);

}  // namespace fenceline::model
