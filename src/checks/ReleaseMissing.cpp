// release-missing: a signal (a flag store or arrival atomic that a spin loop
// in this function waits on, or an outbound flag whose partner is the host or
// another kernel) follows global writes with no release between them on some
// path. A release is the signal's own .release/.acq_rel/.sc semantics, or "a
// release for this signal" (model/Protocol.h: a release fence, or a release
// store/RMW on the signal's word that heads the release sequence the signal's
// RMW continues) between the write and the signal. Scope is judged by
// ScopeTooNarrow.cpp, from the same definition.
//
// Only writes the partner may read count (the partner model): writes before a
// "slot consumed" signal that the waiting side never reads need no release.
//
// Paths are per-thread CFG paths, which decides the block-wide forms without
// further ado: when every writer fences before bar.sync, or the signaller
// fences after it, every path from a write to the signal passes a fence; when
// only the signaller fences before bar.sync (`if (tid == 0) fence`), the path
// of another thread's write skips that fence, crosses bar.sync and reaches
// the signal: reported. A third form, toward waiters that fence with
// fence.sc: thread (0, 0, 0) executes a fence.sc between two barriers, the
// second before the signals (model/ScFencedRelease.h gives the model's
// reason); its closing barrier then counts as a release for the signal.
#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "model/BranchEdges.h"
#include "model/Paths.h"
#include "model/ScFencedRelease.h"
#include "model/ThreadDecidedBranches.h"
#include "model/Operands.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::checks {

using namespace protocol;

namespace {

// The signal's evidence: a flag's reader after a wait, or for a ticket the
// reads after the last block's decision.
void addEvidence(report::Diagnostic& d, const ProtocolModel& ctx, InstId signal, InstId write, bool ticket,
                 const std::function<bool(InstId)>& published, const std::function<bool(InstId)>& release,
                 const std::vector<InstId>& mayRelease) {
  const FunctionModel& fn = ctx.function();
  if (!ticket) {
    addSignalEvidenceOfBestWrite(d, ctx, signal, write, published, release, mayRelease);
    return;
  }
  d.evidence.push_back(report::link(fn, report::LinkKind::DataWrite, write, "before-the-signal"));
  d.evidence.push_back(report::link(fn, report::LinkKind::Signal, signal, "ticket",
                                    "a counting atomic whose returned value the last block's copy compares with "
                                    "the count that means last"));
  d.evidence.push_back(report::link(fn, report::LinkKind::Poll, signal, "same-counter",
                                    "the last block's copy of this atomic observes the count"));
  // The read after the decision that reads this write, decidedly when one does.
  std::vector<InstId> reads = ctx.ticketReads(signal, [](InstId) { return false; }, 256);
  InstId shown = -1;
  model::AliasEvidence best;
  for (InstId r : reads) {
    const model::AliasEvidence e = ctx.dataPairEvidence(write, r);
    if (e.result == model::Alias::No) continue;
    if (shown < 0 || (e.decided && !best.decided)) shown = r, best = e;
    if (e.decided) break;
  }
  d.evidence.push_back(report::link(fn, report::LinkKind::GuardedRead, shown, best.how, best.detail, best.decided));
}

// Writes of other threads that reach the signal through fences only, with
// no barrier between (issue 30, shape 2): a fence orders the executing
// thread's accesses only, so another thread's fence before the signal orders
// nothing for the signal unless a barrier that both pass follows it.
bool widerThan(model::ThreadSet writer, model::ThreadSet releaser) {
  using model::ThreadSet;
  if (writer == ThreadSet::All) return releaser != ThreadSet::All;
  if (writer == ThreadSet::Subset || writer == ThreadSet::OneWarp)
    return releaser == ThreadSet::OneLane || releaser == ThreadSet::OneThread || releaser == ThreadSet::OneBlockThread;
  return writer == ThreadSet::OneLane && (releaser == ThreadSet::OneThread || releaser == ThreadSet::OneBlockThread);
}

// The write's address or value is computed from the thread index (through
// registers and the addresses of loads: `data[tid]`, `hist[keys[i]]` with i
// from %tid): each thread writes its own, so the writers are many threads.
bool variesByThread(const FunctionModel& fn, InstId write) {
  std::set<std::pair<model::ValueReg, InstId>> seen;
  std::vector<std::pair<model::ValueReg, InstId>> work;
  for (const auto& op : fn.instructions[write].operands) {
    if (op.kind == ptx::Operand::Kind::Register) work.push_back({op.reg, write});
    if (op.kind == ptx::Operand::Kind::Address && op.base.kind == ptx::Operand::Kind::Register)
      work.push_back({op.base.reg, write});
  }
  while (!work.empty() && seen.size() < 256) {
    auto [r, where] = work.back();
    work.pop_back();
    if (!seen.insert({r, where}).second) continue;
    for (InstId d : fn.values->reachingDefinitions(r, where)) {
      const auto& def = fn.instructions[d];
      const model::EffectKind k = def.effect.kind;
      if (k != model::EffectKind::None && k != model::EffectKind::Load) continue;
      for (const auto& op : def.operands) {
        if (op.kind == ptx::Operand::Kind::Special && (op.text.starts_with("%tid") || op.text == "%laneid")) return true;
        if (k == model::EffectKind::Load && op.kind == ptx::Operand::Kind::Address &&
            op.base.kind == ptx::Operand::Kind::Register)
          work.push_back({op.base.reg, d});
      }
      if (k == model::EffectKind::None)
        for (model::ValueReg next : model::registerUse(def).read) work.push_back({next, d});
    }
  }
  return false;
}

// For each signal, the signals without release that share one of its polls
// (a signal the same waits poll), found once per function: signals are
// grouped by their list of polls (the copies of one flag write inlined many
// times have one), and each group's list is found once (a loop over every
// pair of signals took 5% of NVSHMEM image 3's instructions; issue 34).
class SharedPolls {
 public:
  explicit SharedPolls(const ProtocolModel& ctx) : ctx_(ctx) {
    for (InstId s : ctx.signals()) {
      auto [group, added] = groupOfList_.try_emplace(ctx.pollsOfWord(s), static_cast<int>(lists_.size()));
      if (added) lists_.push_back(&group->first);
      group_.push_back(group->second);
    }
    sharing_.resize(lists_.size());
  }
  // The signals without release whose polls meet `signal`'s (`signal` among
  // them when it has no release), sorted.
  const std::vector<InstId>& sharing(InstId signal) {
    const auto& signals = ctx_.signals();
    const auto at = std::lower_bound(signals.begin(), signals.end(), signal);
    if (at == signals.end() || *at != signal) return none_;
    const int group = group_[at - signals.begin()];
    auto& found = sharing_[group];
    if (found) return *found;
    found.emplace();
    const std::vector<InstId>& mine = *lists_[group];
    std::vector<int8_t> meets(lists_.size(), -1);  // per group: its polls meet mine (1), not (0), not asked
    for (size_t k = 0; k < signals.size(); ++k) {
      const InstId s = signals[k];
      if (model::hasReleaseSemantics(ctx_.function().instructions[s].effect)) continue;
      int8_t& m = meets[group_[k]];
      if (m < 0) {
        const std::vector<InstId>& theirs = *lists_[group_[k]];
        m = std::any_of(theirs.begin(), theirs.end(),
                        [&](InstId p) { return std::binary_search(mine.begin(), mine.end(), p); });
      }
      if (m) found->push_back(s);
    }
    return *found;
  }

 private:
  const ProtocolModel& ctx_;
  std::map<std::vector<InstId>, int> groupOfList_;
  std::vector<const std::vector<InstId>*> lists_;  // by group
  std::vector<int> group_;                         // by index in ctx.signals()
  std::vector<std::optional<std::vector<InstId>>> sharing_;  // by group
  const std::vector<InstId> none_;
};

// The ways around which the signal does not publish a write (issue 34, the
// residual of F4). Besides a release for the signal:
// - an earlier signal without release of the same word array (a signal the
//   same waits poll): a write that reaches it is reported there, with its own
//   readers; a later signal of the array on the same thread's path (a later
//   trip of a persistent loop: `locks[slice] = 1 - count` for one slice, the
//   count `atomicAdd(&locks[slice'], 1)` of a later one) does not report it
//   again;
// - a branch on the thread index right after a barrier (`__syncthreads(); if
//   (tid == 0) { ... }`), where every thread that runs the signal takes the
//   side that passes such a gate (or a release): the other side is taken
//   only by threads that do not signal, whose earlier writes the barrier
//   handed to the signalling thread, which passes the gate.
class Gates {
 public:
  Gates(const ProtocolModel& ctx, InstId signal, std::function<bool(InstId)> release, SharedPolls& shared)
      : fn_(ctx.function()), signal_(signal), release_(std::move(release)) {
    if (!ctx.pollsOfWord(signal).empty()) earlier_ = &shared.sharing(signal);
    const bool onlyItself = earlier_ && earlier_->size() == 1 && earlier_->front() == signal;
    if (!earlier_ || earlier_->empty() || onlyItself) earlier_ = nullptr;
  }
  bool empty() const { return !earlier_; }
  bool gate(InstId i) const {
    return release_(i) ||
           (earlier_ && i != signal_ && std::binary_search(earlier_->begin(), earlier_->end(), i));
  }
  bool operator()(InstId i) {
    if (gate(i)) return true;
    if (!earlier_) return false;
    const model::BlockId b = fn_.blockOf[i];
    if (model::conditionalBranch(fn_, b) != i) return false;
    auto [cached, fresh] = branch_.try_emplace(i, false);
    if (fresh) cached->second = passesGate(i);
    return cached->second;
  }

 private:
  // The thread indexes that run the signal, by its thread-index guards.
  const std::vector<char>& signallers() {
    if (!signallers_.empty()) return signallers_;
    signallers_.assign(1024, 1);
    auto narrow = [&](ptx::RegisterId predicate, InstId at, bool executesWhen) {
      const auto value = model::ThreadPredicate::ofThreadIndex(fn_, predicate, at);
      for (int64_t tid = 0; tid < 1024; ++tid) {
        if (!signallers_[tid]) continue;
        std::optional<bool> v = value(tid);
        if (v && *v != executesWhen) signallers_[tid] = 0;
      }
    };
    const auto& own = fn_.instructions[signal_].guard;
    if (own && own->reg >= 0) narrow(own->reg, signal_, !own->negated);
    const model::BlockId there = fn_.blockOf[signal_];
    for (model::BlockId b = 0; b < static_cast<model::BlockId>(fn_.blocks.size()); ++b) {
      model::poll();
      const InstId br = model::conditionalBranch(fn_, b);
      if (br < 0 || fn_.instructions[br].guard->reg < 0) continue;
      const auto& g = fn_.instructions[br].guard;
      for (bool value : {true, false}) {
        const model::BlockId s = model::branchTarget(fn_, br, value);
        if (s < 0 || fn_.blocks[s].predecessors.size() != 1 || !fn_.dominates(s, there)) continue;
        narrow(g->reg, br, g->negated ? !value : value);
      }
    }
    return signallers_;
  }
  bool passesGate(InstId br) {
    const model::BlockId b = fn_.blockOf[br];
    const auto& g = fn_.instructions[br].guard;
    if (!g || g->reg < 0) return false;
    // A barrier before the branch in its block, and no write between.
    bool barrier = false;
    for (InstId i = br - 1; i >= fn_.blocks[b].first; --i) {
      const model::EffectKind k = fn_.instructions[i].effect.kind;
      if (k == model::EffectKind::CtaBarrier) {
        barrier = true;
        break;
      }
      if (model::writesGlobalMemory(fn_, i)) return false;
    }
    if (!barrier) return false;
    // Every signalling thread takes one side, decidedly.
    std::optional<bool> side;
    const std::vector<char>& who = signallers();
    const auto value = model::ThreadPredicate::ofThreadIndex(fn_, g->reg, br);
    for (int64_t tid = 0; tid < 1024; ++tid) {
      if (!who[tid]) continue;
      std::optional<bool> v = value(tid);
      if (!v) return false;
      const bool taken = g->negated ? !*v : *v;
      if (side && *side != taken) return false;
      side = taken;
    }
    if (!side) return false;
    const model::BlockId s = model::branchTarget(fn_, br, *side);
    if (s < 0 || fn_.blocks[s].predecessors.size() != 1) return false;
    for (InstId i = fn_.blocks[s].first; i < fn_.blocks[s].last; ++i)
      if (gate(i)) return true;
    return false;
  }

  const FunctionModel& fn_;
  InstId signal_;
  std::function<bool(InstId)> release_;
  const std::vector<InstId>* earlier_ = nullptr;  // SharedPolls::sharing, `signal_` left out; null: none
  std::vector<char> signallers_;
  std::unordered_map<InstId, bool> branch_;
};

// The instructions at which the walks' predicates may hold, for any signal,
// sorted, found once per function: the walks test those alone.
struct WalkCandidates {
  // A signal's Gates: the release points, the signals and the blocks'
  // conditional branches.
  std::vector<InstId> gates;
  // Shape 2's `gather`: those and the barriers.
  std::vector<InstId> gather;
  // The release points and `gates`, each with shape H's barriers (model/ScFencedRelease.h).
  std::vector<InstId> releasesWithSpans, gatesWithSpans;
  WalkCandidates(const ProtocolModel& ctx, const std::vector<InstId>& spans) {
    const FunctionModel& fn = ctx.function();
    gates = ctx.releasePoints();
    gates.insert(gates.end(), ctx.signals().begin(), ctx.signals().end());
    for (model::BlockId b = 0; b < static_cast<model::BlockId>(fn.blocks.size()); ++b)
      if (const InstId br = model::conditionalBranch(fn, b); br >= 0) gates.push_back(br);
    std::sort(gates.begin(), gates.end());
    gates.erase(std::unique(gates.begin(), gates.end()), gates.end());
    std::vector<InstId> barriers;
    for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
      const model::EffectKind k = fn.instructions[i].effect.kind;
      if (k == model::EffectKind::CtaBarrier || k == model::EffectKind::WarpSync) barriers.push_back(i);
    }
    std::set_union(gates.begin(), gates.end(), barriers.begin(), barriers.end(), std::back_inserter(gather));
    const std::vector<InstId>& releases = ctx.releasePoints();
    std::set_union(releases.begin(), releases.end(), spans.begin(), spans.end(), std::back_inserter(releasesWithSpans));
    std::set_union(gates.begin(), gates.end(), spans.begin(), spans.end(), std::back_inserter(gatesWithSpans));
  }
};

// The write is of an earlier trip of a loop around both it and the signal
// (issue 34, F4's residual): every path from the write to the signal passes
// the loop's header, and a register the write's address is computed from is
// redefined in the loop on every such path (the persistent loop's next slice:
// `slice = next(slice)`). The readers that observe the signal compute their
// addresses from the signal's trip; "the same address" of the write's
// expression is the value of another trip, which the analysis cannot compare.
//
// Asked for every (write, signal) pair that release-missing's walks meet: the
// loops around each block, the registers each write's address is computed
// from and their redefinitions in a loop are found once (issue 34: NCCL's
// largest image spent 40% of its time here), and each answer is kept.
class EarlierTrip {
 public:
  explicit EarlierTrip(const FunctionModel& fn) : fn_(fn), loopsOf_(fn.blocks.size()), blocksOf_(fn.loops.size()) {
    for (size_t l = 0; l < fn.loops.size(); ++l) {
      for (model::BlockId b : fn.loops[l].blocks) loopsOf_[b].push_back(static_cast<int>(l));
      blocksOf_[l] = fn.loops[l].blocks;
      std::sort(blocksOf_[l].begin(), blocksOf_[l].end());
    }
  }

  bool operator()(InstId write, InstId signal, bool acrossHeader = true) {
    const uint64_t key = (uint64_t(uint32_t(write)) << 32) | uint32_t(signal);
    auto [known, fresh] = answers_[acrossHeader ? 1 : 0].try_emplace(key, false);
    bool& answer = known->second;  // a reference outlives a rehash
    if (fresh) answer = compute(write, signal, acrossHeader);
    return answer;
  }

 private:
  bool inLoop(int loop, model::BlockId b) const {
    return std::binary_search(blocksOf_[loop].begin(), blocksOf_[loop].end(), b);
  }

  // The smallest loop around both blocks (the first in fn.loops of that size).
  int around(model::BlockId wb, model::BlockId sb) const {
    int best = -1;
    for (int l : loopsOf_[wb]) {
      if (!inLoop(l, sb)) continue;
      if (best < 0 || fn_.loops[l].blocks.size() < fn_.loops[best].blocks.size()) best = l;
    }
    return best;
  }

  // The registers the write's address is computed from (effect-free
  // definitions), sorted.
  const std::vector<model::ValueReg>& sources(InstId write, model::ValueReg base) {
    auto [known, fresh] = sources_.try_emplace(write);
    std::vector<model::ValueReg>& found = known->second;
    if (!fresh) return found;
    std::set<model::ValueReg> regs;
    std::set<std::pair<model::ValueReg, InstId>> seen;
    std::vector<std::pair<model::ValueReg, InstId>> work{{base, write}};
    while (!work.empty() && seen.size() < 512) {
      auto [r, where] = work.back();
      work.pop_back();
      if (!seen.insert({r, where}).second) continue;
      regs.insert(r);
      for (InstId d : fn_.values->reachingDefinitions(r, where)) {
        const auto& def = fn_.instructions[d];
        if (def.effect.kind != model::EffectKind::None) continue;
        for (model::ValueReg next : model::registerUse(def).read) work.push_back({next, d});
      }
    }
    found.assign(regs.begin(), regs.end());
    return found;
  }

  // The loop's instructions that write one of them (the value analysis's
  // definitions are the instructions whose operand 0 writes the register), sorted.
  const std::vector<InstId>& redefinitions(InstId write, model::ValueReg base, int loop) {
    const uint64_t key = (uint64_t(uint32_t(write)) << 32) | uint32_t(loop);
    auto [known, fresh] = redefinitions_.try_emplace(key);
    std::vector<InstId>& found = known->second;
    if (!fresh) return found;
    for (model::ValueReg r : sources(write, base))
      for (InstId d : fn_.values->definitions(r))
        if (inLoop(loop, fn_.blockOf[d])) found.push_back(d);
    std::sort(found.begin(), found.end());
    return found;
  }

  bool compute(InstId write, InstId signal, bool acrossHeader) {
    const int loop = around(fn_.blockOf[write], fn_.blockOf[signal]);
    if (loop < 0) return false;
    const std::vector<InstId> header{fn_.blocks[fn_.loops[loop].header].first};
    auto isHeader = [&](InstId i) { return i == header.front(); };
    if (acrossHeader && !model::everyPathPasses(fn_, write, signal, isHeader, header)) return false;
    const int operand = model::protocolAddress(fn_, write);
    if (operand < 0) return false;
    const auto& op = fn_.instructions[write].operands[operand];
    if (op.kind != ptx::Operand::Kind::Address || op.base.kind != ptx::Operand::Kind::Register) return false;
    const std::vector<InstId>& redefined = redefinitions(write, op.base.reg, loop);
    auto isRedefinition = [&](InstId i) { return std::binary_search(redefined.begin(), redefined.end(), i); };
    return model::everyPathPasses(fn_, write, signal, isRedefinition, redefined);
  }

  const FunctionModel& fn_;
  std::vector<std::vector<int>> loopsOf_;              // per block: the loops holding it, in fn.loops order
  std::vector<std::vector<model::BlockId>> blocksOf_;  // per loop: its blocks, sorted
  std::unordered_map<InstId, std::vector<model::ValueReg>> sources_;
  std::unordered_map<uint64_t, std::vector<InstId>> redefinitions_;  // (write, loop)
  std::unordered_map<uint64_t, bool> answers_[2];                    // (write, signal), per acrossHeader
};

void checkSignal(const ProtocolModel& ctx, InstId signal, bool ticket, const WalkCandidates& candidates,
                 SharedPolls& shared, model::ScFencedRelease& spans, std::set<std::string>& reported,
                 ThreadGuards& guards, EarlierTrip& ofEarlierTrip, Findings& out) {
  const FunctionModel& fn = ctx.function();
  if (model::hasReleaseSemantics(fn.instructions[signal].effect)) return;
  // Every wait of this kernel on the signal's word runs in the launch's other
  // mode (a kernel parameter selects one, issue 34 F4): no waiter of this
  // launch observes it.
  if (!ticket) {
    const std::vector<InstId>& waits = ctx.pollsOfWord(signal);
    if (!waits.empty() &&
        std::all_of(waits.begin(), waits.end(), [&](InstId p) { return ctx.exclusiveModes(signal, p); }))
      return;
  }
  auto published = [&](InstId i) {
    // A write of the launch's other mode (a kernel parameter selects one), or
    // of the block's other mode, never precedes this signal: the block that
    // signals is the one that wrote (issue 35, shape C).
    return (ticket ? ctx.isTicketPublishedWrite(i, signal) : ctx.isPublishedWrite(i, signal)) &&
           !ctx.exclusiveModesInBlock(i, signal);
  };
  auto plainRelease = [&](InstId i) { return ctx.releasesFor(i, signal); };
  Gates gates(ctx, signal, plainRelease, shared);
  std::function<bool(InstId)> release = plainRelease;
  const bool gated = !ticket && !gates.empty();
  if (gated) release = [&](InstId i) { return gates(i); };
  // The walk tests only the instructions where `published` and `release` may hold.
  const std::vector<InstId>& mayPublish = ticket ? ctx.ticketPartnerWrites(signal) : ctx.globalWrites();
  const std::vector<InstId>& mayRelease = gated ? candidates.gates : ctx.releasePoints();
  // Shape H (session 26): a barrier that closes a span in which thread
  // (0, 0, 0) executes a fence.sc also releases for this signal, when every
  // wait on its word fences with fence.sc (model/ScFencedRelease.h). Not for
  // the last block's hand-off of a ticket's observation below: that needs an
  // acquire after the ticket.
  const bool scSpans = !ticket && spans.mayRelease(signal);
  std::function<bool(InstId)> walkRelease = release;
  if (scSpans) walkRelease = [&](InstId i) { return release(i) || spans.releasesFor(i, signal); };
  const std::vector<InstId>& mayWalkRelease =
      !scSpans ? mayRelease : gated ? candidates.gatesWithSpans : candidates.releasesWithSpans;
  std::vector<InstId> writes =
      model::findReachingBackward(fn, signal, published, walkRelease, mayPublish, mayWalkRelease);
  InstId selfFence = -1;
  if (writes.empty() && fn.roles) {
    // Shape 2: the fences on the way are the writers' own; no barrier gathers them.
    const model::ThreadSet signaller = fn.roles->instructionSet(signal);
    auto gather = [&](InstId i) {
      const model::EffectKind k = fn.instructions[i].effect.kind;
      if (k == model::EffectKind::CtaBarrier || k == model::EffectKind::WarpSync) return true;
      return release(i) && fn.instructions[i].effect.kind != model::EffectKind::Fence;
    };
    auto otherThreads = [&](InstId i) {
      if (!published(i) || guards.possiblyOneThread(i)) return false;  // maybe the signaller's own write
      if (ofEarlierTrip(i, signal)) return false;  // another trip's writes: not this signal's (issue 34)
      const model::ThreadSet writer = fn.roles->instructionSet(i);
      if (widerThan(writer, signaller)) return true;
      return signaller == model::ThreadSet::Subset &&
             (writer == model::ThreadSet::All || writer == model::ThreadSet::Subset) &&
             guards.apart(signal, i);
    };
    // A release: in candidates.gates (a superset of mayRelease); a stop: in candidates.gather.
    writes = model::findReachingBackward(fn, signal, otherThreads, gather, mayPublish, candidates.gather);
    if (!writes.empty()) {
      std::vector<InstId> fences =
          model::findReachingBackward(fn, signal, release, gather, candidates.gates, candidates.gather);
      selfFence = fences.empty() ? -1 : fences.front();
      if (selfFence < 0) writes.clear();
    }
  }
  // The last arriver passes on what it observed (issue 30, shape 1): a
  // signal after a ticket's decision, with no release between, publishes the
  // other blocks' writes that the ticket observed; they reach the signal's
  // readers only through an acquire and a release of this thread (a fence
  // between the ticket and the signal: cumulativity).
  InstId observedBy = -1;
  // Only for a flag some wait of this kernel polls, on another word than the
  // count: an RMW on the counter's own word continues the release sequences of
  // the other blocks' counts (and a reset of the count publishes nothing).
  const bool polled = std::binary_search(ctx.signals().begin(), ctx.signals().end(), signal);
  if (writes.empty() && !ticket && polled && !ctx.tickets().empty()) {
    // The tickets from which the signal is reached with no release between:
    // one backward walk from the signal instead of a walk from every ticket.
    const std::vector<InstId>& tickets = ctx.tickets();
    std::vector<InstId> reaching;
    model::findReachingBackward(
        fn, signal,
        [&](InstId i) {
          if (std::binary_search(tickets.begin(), tickets.end(), i)) reaching.push_back(i);
          return false;
        },
        release, tickets, mayRelease);
    std::sort(reaching.begin(), reaching.end());
    for (InstId t : tickets) {
      // A count and a flag reached through two reads of one slot expression
      // (ProtocolModel::throughOneSlotExpression: fields of one record of a
      // table read twice) stay out as before the fields were told apart:
      // such a count is a queue's reservation, not an arrival count (NCCL's
      // GIN descriptors, shape T in docs/real-code.md; not decided).
      if (t == signal || fn.memory->sameWord(t, signal) || ctx.maySameWord(t, signal) ||
          ctx.throughOneSlotExpression(t, signal) ||
          !std::binary_search(reaching.begin(), reaching.end(), t))
        continue;
      InstId best = -1;
      for (InstId w : ctx.ticketPartnerWrites(t)) {
        if (!ctx.isPublishedWrite(w, signal)) continue;
        if (best < 0) best = w;
        if (ctx.hasDecidedReader(w, signal)) {
          best = w;
          break;
        }
      }
      if (best >= 0) {
        writes.push_back(best);
        observedBy = t;
        break;
      }
    }
  }
  // Writes of an earlier trip of the loop around the signal are paired only
  // when no write of the signal's own trip is; their read link is undecided.
  bool earlierTrip = false;
  auto earlier = [&](InstId w) { return ofEarlierTrip(w, signal); };
  std::function<bool(InstId)> sameTrip = published;
  if (!writes.empty() && !ticket && selfFence < 0 && observedBy < 0) {
    std::vector<InstId> own;
    for (InstId w : writes)
      if (!earlier(w)) own.push_back(w);
    if (own.empty()) {
      earlierTrip = true;
    } else {
      writes = own;
      sameTrip = [&](InstId i) { return published(i) && !earlier(i); };
    }
  }
  if (writes.empty() || !reported.insert(siteKey(fn, signal)).second) return;
  Scope scope = ctx.requiredScope(signal);
  std::string semantics(model::toString(fn.instructions[signal].effect.semantics));
  const char* what = fn.instructions[signal].effect.kind == model::EffectKind::Store ? "store" : "atomic";
  auto d = makeDiagnostic(
      fn, signal, "release-missing",
      selfFence >= 0
          ? fmt::format("signal ({} {}) follows other threads' writes that no barrier gathers: the fence before it "
                        "orders each thread's own writes only",
                        semantics, what)
          : fmt::format("signal ({} {}) follows data writes without release ordering; a thread that sees it may "
                        "still read the old data",
                        semantics, what),
      fmt::format("insert {0} between the writes and the signal, executed by the signalling thread after the "
                  "__syncthreads() that gathers the writes (or by every writer before it); or make the signal a "
                  "release (st.release{1}, atom.release{1}, cuda::atomic_ref::store(memory_order_release))",
                  fenceSpelling(scope), scopeName(scope)));
  // Machine fix: a release fence on the signalling thread's line before the signal (after the
  // __syncthreads() that gathers the writes, when there is one: cumulativity covers the other writers).
  d.fixRequest = selfFence >= 0 ? noMachineFix("the fix gathers the writers with a barrier (__syncthreads()) "
                                               "before the signalling threads' fence")
                                : insertBefore(fn, signal, report::FenceToInsert::AcquireRelease, scopeWord(scope));
  d.fixRequest.beforeHelperCall = selfFence < 0;
  if (observedBy >= 0)
    d.fixRequest = noMachineFix("the fence goes on the last arriver's path between its count and the flag");
  for (InstId w : writes) d.fixRequest.after.push_back(report::locationOf(fn, w));
  // Shown: a write whose address the way to the signal does not recompute
  // (the signal's own slice), when there is one.
  if (writes.size() > 1 && !ticket)
    std::stable_partition(writes.begin(), writes.end(),
                          [&](InstId w) { return !ofEarlierTrip(w, signal, false); });
  const InstId shown = writes.front();
  if (observedBy >= 0) {
    addSignalEvidence(d, ctx, signal, shown);
    d.evidence.push_back(report::link(fn, report::LinkKind::Ordering, observedBy, "observed-by-ticket",
                                      "the signalling thread observed the other blocks' writes through this "
                                      "atomic's returned value, and no release between it and the signal passes "
                                      "them on"));
    addNote(d, fn, observedBy, "the other blocks' writes are observed here (the atomic's returned value), and "
                               "passed on by the signal without a fence between");
  } else {
    addEvidence(d, ctx, signal, shown, ticket, sameTrip, walkRelease, mayWalkRelease);
    if (earlierTrip)
      for (auto& link : d.evidence)
        if (link.kind == report::LinkKind::GuardedRead) {
          link.decided = false;
          link.how = "other-trip";
          link.detail = "the write is of an earlier trip of the loop around the signal (its address is recomputed on "
                        "every path to the signal); the readers that observe the signal read the signal's trip's "
                        "addresses, which the analysis cannot compare with the write's";
        }
  }
  if (selfFence >= 0) {
    // The writers are decidedly other threads when every thread writes (or
    // the roles say the write runs on more threads than the signal); a write
    // on a data-dependent subset may be the signalling thread's own.
    const model::ThreadSet writer = fn.roles->instructionSet(shown);
    const bool others = writer != model::ThreadSet::Subset || variesByThread(fn, shown);
    d.evidence.push_back(report::link(fn, report::LinkKind::Ordering, selfFence,
                                      others ? "own-thread-fence" : "writer-subset",
                                      others ? "this fence orders the executing thread's accesses; no barrier between "
                                               "the other threads' writes and the signal passes them on"
                                             : "the write runs on a data-dependent subset of the threads, which may be "
                                               "the signalling thread alone",
                                      others));
    addNote(d, fn, shown, "this write, by threads that do not signal, reaches the signal with no barrier between");
    addNote(d, fn, selfFence, "this fence orders only the executing thread's own writes");
  } else {
    addNote(d, fn, shown, "this write reaches the signal on a path without a release");
  }
  out.push_back(std::move(d));
}

}  // namespace

void checkReleaseMissing(const FunctionModel& fn, Findings& out) {
  const ProtocolModel& ctx = model::protocolOf(fn);
  std::set<std::string> reported;
  // Thread-index guards of the function's instructions, found once for every signal.
  ThreadGuards guards(fn);
  EarlierTrip ofEarlierTrip(fn);
  model::ScFencedRelease spans(ctx);
  const WalkCandidates candidates(ctx, spans.candidates());
  SharedPolls shared(ctx);
  auto check = [&](InstId signal, bool ticket) {
    checkSignal(ctx, signal, ticket, candidates, shared, spans, reported, guards, ofEarlierTrip, out);
  };
  for (InstId signal : ctx.signals()) check(signal, false);
  // The partner is outside the kernel (host, later kernel): judged on clear evidence only.
  for (InstId signal : ctx.outboundSignals()) check(signal, false);
  // The last block does the work: the counting atomic is the signal (issue 30, shape 1).
  for (InstId ticket : ctx.tickets()) check(ticket, true);
  // Shared memory published to the other CTAs of the cluster by a relaxed cluster arrive.
  checkClusterBarrierRelease(fn, out);
}

}  // namespace fenceline::checks
