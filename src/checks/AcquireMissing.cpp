// acquire-missing: a spin loop observes a flag with a relaxed, volatile or
// weak load (or a relaxed atomic) and exits into reads of the data the flag
// guards, with no acquire on some path from the poll to a read. An acquire
// is the poll's own .acquire/.acq_rel/.sc semantics, or an acquire fence
// (fence.sc/acq_rel/acquire, membar) between. Scope is not judged here (see
// ScopeTooNarrow.cpp): any acquire fence counts.
//
// Which reads a wait guards is the partner model's (model/Protocol.h): memory
// some write of the kernel may touch, or peer memory written outside it. A
// wait followed only by reads of immutable inputs and pointer tables is an
// execution barrier and needs no acquire; the data of a payload-carrying poll
// (LL packets) arrives in the poll itself.
//
// Paths are per-thread CFG paths, which also covers the block-wide form: a
// path from thread 0's poll through bar.sync to another thread's read must
// pass a fence (thread 0's before bar.sync, or the reader's after it).
//
// A read through ld.global.nc after a wait is not made coherent by a fence;
// it is reported at the poll when the non-coherent load reads an object this
// function also writes, or a buffer reached through a pointer read from memory.
#include <set>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "model/BranchEdges.h"
#include "model/Paths.h"
#include "model/TripDecidedBranches.h"

namespace fenceline::checks {

using namespace protocol;

namespace {

// How the counting thread's path from the ticket reaches a read with no
// acquire on the way.
enum class TicketPath {
  Reached,       // on a path whose every branch before the barrier is decided
  ThreadSide,    // only through a thread-index branch whose other side acquires
  DecisionSide,  // only through a side of the ticket's own decision whose other side acquires
  None,
};

// The counting thread reaches `read` with no acquire on the way, whichever
// way it goes: until its path crosses a CTA barrier (after which the path is
// another thread's, the reader's), a branch on the thread index other than
// the ticket's own decision leads to the read on every side, since which side
// the counting thread takes is not decided here; other branches on some side.
// (A library barrier whose counting thread, thread (0, 0, 0), fences under
// `tid.x == 0 && tid.y == 0 && tid.z == 0` has a fence-free path only on that
// test's other side, which the counting thread never takes.) A least fixed
// point over (block, crossed a barrier) from the instruction after the ticket.
// A branch on the ticket's own decision is taken on its "last" side, which
// this walk does not tell from the other: where one side acquires before the
// read and the other reaches it without, the counting thread may fence exactly
// when it is last (`if (last) __threadfence();`), so that branch too must
// reach the read on every side.
TicketPath countingThreadReaches(const ProtocolModel& ctx, ThreadGuards& guards, InstId ticket, InstId read) {
  const FunctionModel& fn = ctx.function();
  const std::vector<InstId>& decisions = ctx.ticketBranches(ticket);
  const model::BlockId home = fn.blockOf[ticket];
  const size_t blocks = fn.blocks.size();
  // Scans block b from `from`: 1 when the read comes first, 0 when an acquire
  // (or the ticket again) does, -1 when neither; `crossed` is updated, and
  // `acquire` is set to the acquire met.
  auto scan = [&](model::BlockId b, InstId from, bool& crossed, InstId& acquire) {
    for (InstId i = from; i < fn.blocks[b].last; ++i) {
      if (i == read) return 1;
      if (i == ticket) return 0;
      if (ctx.isAcquire(i)) return acquire = i, 0;
      if (fn.instructions[i].effect.kind == model::EffectKind::CtaBarrier) crossed = true;
    }
    return -1;
  };
  // Per block, computed once: its successors that do not lead back above the
  // ticket, what kind of branch ends it, and, scanned from its top, what comes
  // first, whether a barrier comes before it, and whether the read follows an
  // acquire met there.
  enum : char { Plain, ThreadBranch, DecisionBranch };
  std::vector<std::vector<model::BlockId>> next(blocks);
  std::vector<char> branchKind(blocks, Plain);
  std::vector<std::pair<int, bool>> top(blocks);
  std::vector<char> acquired(blocks, 0);  // from its top, an acquire is met and the read follows it
  for (model::BlockId b = 0; b < static_cast<model::BlockId>(blocks); ++b) {
    model::poll();
    for (model::BlockId s : fn.blocks[b].successors)
      if (!fn.dominates(s, home)) next[b].push_back(s);
    const InstId branch = model::conditionalBranch(fn, b);
    if (branch >= 0 && fn.instructions[branch].guard->reg >= 0) {
      if (std::binary_search(decisions.begin(), decisions.end(), branch))
        branchKind[b] = DecisionBranch;
      else if (guards.onThreadIndex(branch))
        branchKind[b] = ThreadBranch;
    }
    bool barrier = false;
    InstId acquire = -1;
    top[b].first = scan(b, fn.blocks[b].first, barrier, acquire);
    top[b].second = barrier;
    acquired[b] = acquire >= 0 ? 2 : 0;  // 2: asked below, where a decision branch needs it
  }
  // Whether an acquire-then-read path starts at the top of b (the decision
  // branches' other side).
  const bool decisionBranches = std::find(branchKind.begin(), branchKind.end(), DecisionBranch) != branchKind.end();
  for (model::BlockId b = 0; b < static_cast<model::BlockId>(blocks); ++b) {
    if (acquired[b] != 2) continue;
    acquired[b] = 0;
    if (!decisionBranches) continue;
    bool crossed = false;
    InstId acquire = -1;
    scan(b, fn.blocks[b].first, crossed, acquire);
    acquired[b] = model::reachable(fn, acquire, read) ? 1 : 0;
  }
  for (bool changed = decisionBranches; changed;) {
    changed = false;
    for (model::BlockId b = static_cast<model::BlockId>(blocks) - 1; b >= 0; --b) {
      model::poll();
      if (acquired[b] || top[b].first >= 0) continue;
      if (std::any_of(next[b].begin(), next[b].end(), [&](model::BlockId s) { return acquired[s] != 0; }))
        acquired[b] = 1, changed = true;
    }
  }
  // value[b * 2 + crossed]: the read is reached from the top of b. `strict`
  // says whether thread-index and decision branches must reach it on every
  // side; run once with and, if that fails, once without each kind.
  std::vector<char> value(blocks * 2, 0);
  auto solve = [&](bool threadEvery, bool decisionEvery) {
    std::fill(value.begin(), value.end(), 0);
    auto combine = [&](model::BlockId b, bool crossed) {
      if (next[b].empty()) return false;
      auto reached = [&](model::BlockId s) { return value[size_t(s) * 2 + (crossed ? 1 : 0)] != 0; };
      const bool every = !crossed && ((branchKind[b] == ThreadBranch && threadEvery) ||
                                      (branchKind[b] == DecisionBranch && decisionEvery &&
                                       std::any_of(next[b].begin(), next[b].end(),
                                                   [&](model::BlockId s) { return acquired[s] != 0; })));
      return every ? std::all_of(next[b].begin(), next[b].end(), reached)
                   : std::any_of(next[b].begin(), next[b].end(), reached);
    };
    // Blocks last to first: most edges go forward, so a pass settles all but loops.
    for (bool changed = true; changed;) {
      changed = false;
      for (model::BlockId b = static_cast<model::BlockId>(blocks) - 1; b >= 0; --b) {
        model::poll();
        for (int c = 0; c < 2; ++c) {
          char& v = value[size_t(b) * 2 + c];
          if (v) continue;
          const auto [found, barrier] = top[b];
          if (found == 1 || (found < 0 && combine(b, c == 1 || barrier))) v = 1, changed = true;
        }
      }
    }
    bool crossed = false;
    InstId acquire = -1;
    const int found = scan(home, ticket + 1, crossed, acquire);
    return found == 1 || (found < 0 && combine(home, crossed));
  };
  if (solve(true, true)) return TicketPath::Reached;
  if (solve(true, false)) return TicketPath::DecisionSide;
  if (solve(false, false)) return TicketPath::ThreadSide;
  return TicketPath::None;
}

// The last block does the work (issue 30, shape 1): a counting RMW whose
// returned value decides that every other block has arrived, then reads of
// what they wrote before their own count, with no acquire between (the RMW
// itself .acquire/.acq_rel, or an acquire fence by the counting thread before
// the barrier that hands the decision on, or by every reader after it).
void checkTickets(const ProtocolModel& ctx, std::set<std::string>& reported, Findings& out) {
  const FunctionModel& fn = ctx.function();
  ThreadGuards guards(fn);  // which branches test the thread index, asked for every (ticket, read)
  for (InstId ticket : ctx.tickets()) {
    if (model::hasAcquireSemantics(fn.instructions[ticket].effect)) continue;
    auto acquire = [&](InstId i) { return ctx.isAcquire(i); };
    std::vector<InstId> reads = ctx.ticketReads(ticket, acquire, 64);
    if (reads.empty()) continue;
    // The read shown: one the counting thread's path decidedly reaches, with
    // a decided write, where there is one.
    InstId read = -1;
    ProtocolModel::Link write;
    TicketPath onPath = TicketPath::None;
    // A read that is not volatile-style is shown before one that is (see
    // volatileStyleRead).
    for (int r = 0, best = -1; r < static_cast<int>(reads.size()) && best < 7; ++r) {
      ProtocolModel::Link w = ctx.ticketWriteRead(reads[r], ticket);
      const TicketPath path = countingThreadReaches(ctx, guards, ticket, reads[r]);
      const int score = (path == TicketPath::Reached ? 4 : 0) + (w.evidence.decided ? 2 : 0) +
                        (volatileStyleRead(fn, reads[r]) ? 0 : 1);
      if (score > best) best = score, read = reads[r], write = w, onPath = path;
    }
    if (!reported.insert(siteKey(fn, ticket)).second) continue;
    const Scope scope = ctx.requiredScope(ticket);
    std::string semantics(model::toString(fn.instructions[ticket].effect.semantics));
    auto d = makeDiagnostic(
        fn, ticket, "acquire-missing",
        fmt::format("the returned value of this {} atomic decides that the other blocks have arrived, but no "
                    "acquire orders the reads of what they wrote after it",
                    semantics),
        fmt::format("insert {} after the atomic, executed by the counting thread before the barrier that hands "
                    "its decision to the block (or by every reader after the decision); or make the atomic "
                    "acq_rel (cuda::atomic_ref::fetch_add(1, memory_order_acq_rel))",
                    fenceSpelling(scope)));
    d.fixRequest = noMachineFix("the acquire goes after the atomic on the counting thread's path, before the "
                                "barrier that hands the decision on");
    d.fixRequest.before.push_back(report::locationOf(fn, read));
    addNote(d, fn, read, "this read is not ordered after the observation; it may see the data as it was before "
                         "the other blocks counted");
    const InstId branch = ctx.ticketBranches(ticket).front();
    d.evidence.push_back(report::link(
        fn, report::LinkKind::Poll, ticket, "ticket",
        fmt::format("the atomic's returned value, compared for equality with the count that means last, decides "
                    "the branch at {}",
                    describe(fn, branch))));
    d.evidence.push_back(report::link(fn, report::LinkKind::Signal, ticket, "same-counter",
                                      "the other blocks' copies of this atomic count on the same word"));
    d.evidence.push_back(report::link(fn, report::LinkKind::Partner, -1, "in-kernel",
                                      "the partner runs this kernel (another block)"));
    if (write.inst < 0)
      d.evidence.push_back(report::undecidedLink(fn, report::LinkKind::DataWrite, -1, "no-partner-write",
                                                 "no write before the atomic reaches this read"));
    else
      d.evidence.push_back(report::link(fn, report::LinkKind::DataWrite, write.inst, write.evidence.how,
                                        write.evidence.detail, write.evidence.decided));
    if (onPath == TicketPath::Reached)
      d.evidence.push_back(report::link(fn, report::LinkKind::GuardedRead, read, "after-the-decision"));
    else if (onPath == TicketPath::DecisionSide)
      d.evidence.push_back(report::undecidedLink(
          fn, report::LinkKind::GuardedRead, read, "decision-side",
          "the paths from the atomic to this read without an acquire take a side of the atomic's own decision "
          "whose other side acquires; which side means last was not decided"));
    else
      d.evidence.push_back(report::undecidedLink(
          fn, report::LinkKind::GuardedRead, read, "thread-path",
          "the paths from the atomic to this read without an acquire take a branch on the thread index "
          "before a barrier, whose other side has one; which side the counting thread takes was not decided"));
    markVolatileStyleReads(d, fn, read);
    out.push_back(std::move(d));
  }
}

}  // namespace

void checkAcquireMissing(const FunctionModel& fn, Findings& out) {
  const ProtocolModel& ctx = model::protocolOf(fn);
  std::set<std::string> reported;
  // The walks test only the candidates: the guarded reads after the poll and
  // the acquire points.
  const std::vector<InstId>& acquires = ctx.acquirePoints();
  const std::vector<InstId> none;
  for (const auto& spin : ctx.spins()) {
    for (InstId poll : spin.polls) {
      if (model::hasAcquireSemantics(fn.instructions[poll].effect)) continue;
      // A floating-point atomic after the wait is not judged here (model::isDataUpdate).
      auto guarded = [&](InstId i) { return ctx.isGuardedRead(i, poll) && !model::isDataUpdate(fn, i); };
      const std::vector<InstId>& reads = ctx.guardedReadsAfter(poll);
      auto acquire = [&](InstId i) { return ctx.isAcquire(i); };
      InstId read = model::findReachable(fn, poll, guarded, acquire, reads, acquires);
      // Only on paths a trip that polls can take: a branch whose predicate the
      // poll's own guard decides goes that one way (session 26, shape J).
      if (read >= 0) read = model::findReachableOnPollTrip(fn, spin, poll, guarded, acquire, reads, acquires);
      // A site reported already (another copy of an inlined wait) is not
      // reported again: its evidence is not looked for.
      if (read >= 0 && reported.contains(siteKey(fn, poll))) continue;
      if (read >= 0) read = decidedReadAfter(ctx, poll, read, guarded, acquire, acquires);
      if (read >= 0 && volatileStyleRead(fn, read))
        read = otherThanVolatileStyleRead(ctx, poll, read, guarded, acquire, acquires);
      if (read >= 0) {
        if (!reported.insert(siteKey(fn, poll)).second) continue;
        std::string semantics(model::toString(fn.instructions[poll].effect.semantics));
        auto d = makeDiagnostic(
            fn, poll, "acquire-missing",
            fmt::format("spin loop exits on a {} load of the flag without acquire ordering before the data it "
                        "guards is read",
                        semantics),
            fmt::format("insert {} after the loop, on every exit path, executed by the waiting thread; or poll "
                        "with ld.acquire{} (cuda::atomic_ref::load(memory_order_acquire))",
                        fenceSpelling(ctx.requiredScope(poll)), scopeName(ctx.requiredScope(poll))));
        // Machine fix: an acquire fence after the loop statement (every exit path), before the read;
        // where the read is inside the loop on its way out (a spin lock's critical section), before
        // the read.
        const model::SpinLoop* spin = ctx.spinContaining(poll);
        d.fixRequest = spin && spin->contains(fn, read)
                           ? insertBefore(fn, read, report::FenceToInsert::AcquireRelease,
                                          scopeWord(ctx.requiredScope(poll)))
                           : insertAfterLoop(fn, poll, report::FenceToInsert::AcquireRelease,
                                             scopeWord(ctx.requiredScope(poll)));
        d.fixRequest.before.push_back(report::locationOf(fn, read));
        addNote(d, fn, read, "this read is not ordered after the flag observation; it may see the data as it was "
                             "before the signal");
        addWaitEvidence(d, ctx, poll, read);
        markVolatileStyleReads(d, fn, read);
        out.push_back(std::move(d));
        continue;
      }
      // Acquire present: a non-coherent read after the wait is still stale-prone.
      auto nonCoherent = [&](InstId i) { return guarded(i) && ctx.isStaleProneNonCoherentRead(i); };
      auto never = [](InstId) { return false; };
      InstId nc = model::findReachable(fn, poll, nonCoherent, never, reads, none);
      if (nc >= 0 && reported.contains(siteKey(fn, poll))) continue;
      if (nc >= 0) nc = decidedReadAfter(ctx, poll, nc, nonCoherent, never, none);
      if (nc < 0 || !reported.insert(siteKey(fn, poll)).second) continue;
      auto d = makeDiagnostic(fn, poll, "acquire-missing",
                              "data guarded by this spin loop is read with ld.global.nc (non-coherent); no fence "
                              "orders that read after the flag",
                              "read the guarded data with a coherent load: no __ldg, no `const __restrict__` on "
                              "that pointer (use a plain load, __ldcg, or ld.relaxed/ld.acquire)");
      d.fixRequest = noMachineFix("the fix changes how the data is loaded (its pointer's qualifiers), not one line");
      addNote(d, fn, nc, "non-coherent load (ld.global.nc) of data written while the kernel runs");
      addWaitEvidence(d, ctx, poll, nc);
      out.push_back(std::move(d));
    }
  }
  checkTickets(ctx, reported, out);
}

}  // namespace fenceline::checks
