// Wording of the protocol checks' findings (see ProtocolReport.h).
#include "checks/ProtocolReport.h"

#include "model/BarrierStateWords.h"
#include "model/BlockCopiedPointers.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "model/BranchEdges.h"
#include "model/Operands.h"
#include "model/ThreadDecidedBranches.h"
#include "model/Paths.h"
#include "model/PolledRecord.h"

namespace fenceline::checks::protocol {

std::string describe(const FunctionModel& fn, InstId inst) {
  auto chain = fn.sourceChain(inst);
  if (!chain.empty()) return fmt::format("line {}", chain.front().line);
  return fmt::format("PTX line {}", fn.instructions[inst].syntax->pos.line);
}

std::string scopeName(Scope scope) { return "." + std::string(model::toString(scope)); }

std::string fenceSpelling(Scope scope) {
  switch (scope) {
    case Scope::Sys: return "__threadfence_system() (fence.sc.sys)";
    case Scope::Cluster: return "fence.acq_rel.cluster";
    case Scope::Cta: return "__threadfence_block() (fence.acq_rel.cta)";
    default: return "__threadfence() (fence.sc.gpu)";
  }
}

report::Diagnostic makeDiagnostic(const FunctionModel& fn, InstId at, std::string check, std::string message,
                                  std::string fix) {
  report::Diagnostic d;
  d.check = std::move(check);
  d.severity = report::Severity::Warning;
  d.message = std::move(message);
  d.function = fn.function ? fn.function->name : std::string();
  d.location = report::locationOf(fn, at);
  d.fix = std::move(fix);
  return d;
}

void addNote(report::Diagnostic& diagnostic, const FunctionModel& fn, InstId at, std::string message) {
  diagnostic.notes.push_back({std::move(message), report::locationOf(fn, at)});
}

namespace {

report::EvidenceLink aliasLink(const FunctionModel& fn, report::LinkKind kind, InstId at,
                               const model::AliasEvidence& e) {
  return report::link(fn, kind, at, e.how, e.detail, e.decided);
}

// The signal and the poll are entries of one table of pointers to the
// ranks' counters (one indexed by rank).
bool peerTable(const ProtocolModel& ctx, InstId signal, InstId poll) {
  const std::string how = ctx.aliasEvidence(signal, poll).how;
  return how == "peer-table" || how == "same-table-entry";
}

}  // namespace

void addWaitEvidence(report::Diagnostic& d, const ProtocolModel& ctx, InstId poll, InstId read) {
  using report::LinkKind;
  const FunctionModel& fn = ctx.function();
  d.evidence.push_back(report::link(fn, LinkKind::Poll, poll, "spin-loop"));
  const ProtocolModel::Link signal = ctx.observedSignal(poll);
  if (signal.inst < 0) {
    d.evidence.push_back(report::undecidedLink(
        fn, LinkKind::Partner, -1, "unknown-partner",
        "no write of this kernel raises the polled flag: the partner is outside the kernel, and what it writes "
        "before raising it is not in the PTX"));
    d.evidence.push_back(report::link(fn, LinkKind::GuardedRead, read, "after-the-wait"));
    return;
  }
  d.evidence.push_back(aliasLink(fn, LinkKind::Signal, signal.inst, signal.evidence));
  d.evidence.push_back(report::link(fn, LinkKind::Partner, -1, "in-kernel",
                                    "the partner runs this kernel (another block, or another rank's copy)"));
  ProtocolModel::Link write = ctx.partnerWriteRead(read, poll);
  // A barrier's own index word hands nothing as data, if every block that
  // stores it passes the barrier (model/BarrierStateWords.h).
  if (write.inst >= 0 && write.evidence.decided && model::isBarrierStateStore(ctx, write.inst))
    write.evidence = model::barrierStateEvidence();
  // The partner is another rank (its signal comes through a peer pointer)
  // and this read is of that rank's memory: what it wrote there before
  // raising the flag is the data. The partner is another rank's copy of this
  // kernel, so that write is one of this kernel's writes: presumed only where
  // some write of the kernel before the signal may be the data and the
  // analysis could not decide that it is (partnerWriteRead's undecided
  // write, or one before a signal found through symmetric addressing, whose
  // writes the partner model does not gather). With none, what is there was
  // written before the launch (a configuration field, an earlier kernel's
  // output): not located (peer-before-launch, undecided). Not for a
  // non-coherent read (issue 34, NCCL): ld.global.nc states that its bytes
  // are not written while the kernel runs; only a write of this kernel (or
  // of another rank's copy, exhibited by partnerWriteRead) decides that
  // they are.
  const bool nonCoherent = fn.instructions[read].hasModifier("nc");
  // Not for a strong pair (isStrongPair) or a polled copy (isPolledCopyStore):
  // the write the read is paired with hands nothing weak, or no data, and
  // presuming another is no evidence.
  const bool handsNoData =
      write.inst >= 0 && (write.evidence.how == "strong-pair" || write.evidence.how == "polled-copy" ||
                          write.evidence.how == "barrier-state");
  // Nor for a field of the polled record that the kernel's writes of that
  // record all miss (model/PolledRecord.h): configuration, not data.
  const bool peerRead = (write.inst < 0 || !write.evidence.decided) && !nonCoherent && !handsNoData &&
                        signal.evidence.decided && ctx.goesThroughPeerPointer(signal.inst) &&
                        ctx.readsThroughPeerPointer(read) && !model::readsUnwrittenFieldOfPolledRecord(ctx, read, poll) &&
                        model::blockCopiedPointer(fn, read).empty();
  // A write that precedes no signal the wait observes (`unrelated-signal`,
  // or only as an interpreter's plan says: `plan-order`) is not one before
  // the signal: the question is asked of the signal.
  const bool beforeSignal =
      write.inst >= 0 && write.evidence.how != "unrelated-signal" && write.evidence.how != "plan-order";
  if (peerRead && (beforeSignal || ctx.mayReadWriteBeforeSignal(read, poll, signal.inst))) {
    d.evidence.push_back(report::link(fn, LinkKind::DataWrite, -1, "peer-memory",
                                      "the read is of another rank's memory (through a peer pointer), which that rank "
                                      "wrote before raising the flag"));
  } else if (peerRead) {
    d.evidence.push_back(report::undecidedLink(
        fn, LinkKind::DataWrite, -1, "peer-before-launch",
        "the read is of another rank's memory (through a peer pointer), but no write of this kernel may touch its "
        "bytes: what is there was written before the launch (a configuration field, or an earlier kernel's output "
        "on that rank), which the PTX does not show; whether the flag must order such writes for this read is "
        "disputed (vLLM's custom all-reduce start barrier)"));
  } else if (nonCoherent && (write.inst < 0 || !write.evidence.decided))
    d.evidence.push_back(report::undecidedLink(
        fn, LinkKind::DataWrite, write.inst, "nc-unwritten",
        "the read is non-coherent (ld.global.nc: its bytes are not written while the kernel runs); no write of this "
        "kernel, nor of another rank's copy, was shown to touch them"));
  else if (write.inst < 0)
    d.evidence.push_back(report::undecidedLink(fn, LinkKind::DataWrite, -1, "no-partner-write",
                                               "no write of the partner before its signal reaches this read"));
  else
    d.evidence.push_back(aliasLink(fn, LinkKind::DataWrite, write.inst, write.evidence));
  d.evidence.push_back(report::link(fn, LinkKind::GuardedRead, read, "after-the-wait"));
}

void addSignalEvidence(report::Diagnostic& d, const ProtocolModel& ctx, InstId signal, InstId write, bool forScope) {
  using report::LinkKind;
  const FunctionModel& fn = ctx.function();
  d.evidence.push_back(report::link(fn, LinkKind::DataWrite, write, "before-the-signal"));
  d.evidence.push_back(report::link(fn, LinkKind::Signal, signal, "flag-write"));
  const ProtocolModel::Reader reader = ctx.readerOf(write, signal);
  if (reader.poll >= 0 && !reader.endOfKernel) {
    d.evidence.push_back(report::link(fn, LinkKind::Poll, reader.poll, "spin-loop"));
    // A barrier's own index word (model/BarrierStateWords.h).
    const bool barrierState = reader.evidence.decided && model::isBarrierStateStore(ctx, write);
    d.evidence.push_back(
        aliasLink(fn, LinkKind::GuardedRead, reader.read, barrierState ? model::barrierStateEvidence() : reader.evidence));
    return;
  }
  // The reader is outside the PTX: the next launch, the host, another device.
  if (reader.poll >= 0) d.evidence.push_back(report::link(fn, LinkKind::Poll, reader.poll, "end-of-kernel-wait"));
  // For the scope, who reads decides: scopes are about threads (issue 34,
  // NVSHMEM's D: GPUNetIO's .gpu fence before a NIC doorbell).
  if (forScope && fn.instructions[signal].hasModifier("mmio")) {
    d.evidence.push_back(report::undecidedLink(
        fn, LinkKind::Partner, -1, "mmio-device",
        "the signal is a store to memory-mapped I/O (st.mmio): its reader is a device, not a thread, and the PTX "
        "model's scopes do not say which fence orders a device's reads (the field orders them with a .gpu fence "
        "when the data is in GPU memory)"));
    return;
  }
  const bool peerNextLaunch =
      reader.endOfKernel && (ctx.goesThroughPeerPointer(signal) || peerTable(ctx, signal, reader.poll));
  if (forScope && !peerNextLaunch && !ctx.isOutboundSignal(signal) &&
      (ctx.isSystemScopeSignal(signal) || (reader.poll < 0 && ctx.isFifoTrigger(signal)))) {
    d.evidence.push_back(report::undecidedLink(
        fn, LinkKind::Partner, -1, "device-or-host",
        "no wait of this kernel reads the signal, and nothing shows that a thread does: the host's threads need "
        ".sys, but a device (a NIC reading a doorbell record or a work ring in GPU memory) is no thread of the PTX "
        "model, and the field orders its reads with a .gpu fence"));
    return;
  }
  if (ctx.isSystemScopeSignal(signal))
    d.evidence.push_back(report::link(fn, LinkKind::Partner, -1, "sys-scope-signal",
                                      "the signal is a .sys store or atomic: the kernel states that the host or "
                                      "another device reads what it publishes (those reads are not in the PTX)"));
  else if (reader.poll < 0 && ctx.isFifoTrigger(signal))
    d.evidence.push_back(report::link(fn, LinkKind::Partner, -1, "fifo-slot",
                                      "the signal is stored into the ring slot that a reservation atomic's returned "
                                      "value indexes, and no wait of this kernel reads it: the host (or a proxy "
                                      "thread) polls it, and its reads are not in the PTX"));
  else if (peerNextLaunch)
    d.evidence.push_back(report::link(fn, LinkKind::Partner, -1, "peer-next-launch",
                                      "the signal goes to another GPU, whose next kernel reads the data after the "
                                      "wait (those reads are not in the PTX)"));
  else
    d.evidence.push_back(report::undecidedLink(
        fn, LinkKind::Partner, -1, reader.endOfKernel ? "next-launch" : "unknown-partner",
        reader.endOfKernel ? "no data access follows the wait on this flag: its readers are later kernels, which "
                             "the launch order may already order after these writes"
                           : "no wait in this kernel observes the signal, and nothing says who does"));
}

InstId decidedReadAfter(const ProtocolModel& ctx, InstId poll, InstId first,
                        const std::function<bool(InstId)>& guarded, const std::function<bool(InstId)>& stop,
                        const std::vector<InstId>& mayStop) {
  report::Diagnostic probe;
  addWaitEvidence(probe, ctx, poll, first);
  const report::EvidenceLink* undecided = probe.undecidedLink();
  if (!undecided || undecided->kind != report::LinkKind::DataWrite) return first;
  // Only the data link depends on the read: ask it alone (the same rule as
  // addWaitEvidence), for at most kMaxReads reads.
  const ProtocolModel::Link signal = ctx.observedSignal(poll);
  const bool peerPartner = signal.evidence.decided && ctx.goesThroughPeerPointer(signal.inst);
  constexpr int kMaxReads = 256;
  int asked = 0;
  auto decidedData = [&](InstId read) {
    if (++asked > kMaxReads) return false;
    // The link's facts, not its text: up to kMaxReads reads per wait.
    const ProtocolModel::PartnerFacts write = ctx.partnerWriteFacts(read, poll);
    if (write.decided) return !model::isBarrierStateStore(ctx, write.inst);
    return peerPartner && !write.strongPair && !write.polledCopy &&
           !ctx.function().instructions[read].hasModifier("nc") && ctx.readsThroughPeerPointer(read) &&
           model::blockCopiedPointer(ctx.function(), read).empty() &&
           ((write.inst >= 0 && !write.unrelatedSignal) || ctx.mayReadWriteBeforeSignal(read, poll, signal.inst)) &&
           !model::readsUnwrittenFieldOfPolledRecord(ctx, read, poll);
  };
  InstId better = model::findReachable(
      ctx.function(), poll, [&](InstId i) { return asked <= kMaxReads && guarded(i) && decidedData(i); }, stop,
      ctx.guardedReadsAfter(poll), mayStop);
  if (better >= 0 || !peerPartner || undecided->how != "no-partner-write") return better >= 0 ? better : first;
  // None is decided, and the first read is not of the partner's memory: a
  // read of another rank's memory names what the wait is about
  // (peer-before-launch) where the first read names nothing.
  asked = 0;
  auto peerRead = [&](InstId read) {
    if (++asked > kMaxReads) return false;
    return !ctx.function().instructions[read].hasModifier("nc") && ctx.readsThroughPeerPointer(read) &&
           !model::readsUnwrittenFieldOfPolledRecord(ctx, read, poll);
  };
  const InstId peer = model::findReachable(
      ctx.function(), poll, [&](InstId i) { return asked <= kMaxReads && guarded(i) && peerRead(i); }, stop,
      ctx.guardedReadsAfter(poll), mayStop);
  return peer >= 0 ? peer : first;
}

bool volatileStyleRead(const FunctionModel& fn, InstId read) {
  const model::Inst& inst = fn.instructions[read];
  return model::isVolatileStyleRead(*inst.syntax, inst.effect);
}

InstId otherThanVolatileStyleRead(const ProtocolModel& ctx, InstId poll, InstId read,
                                  const std::function<bool(InstId)>& guarded, const std::function<bool(InstId)>& stop,
                                  const std::vector<InstId>& mayStop) {
  const FunctionModel& fn = ctx.function();
  auto other = [&](InstId i) { return guarded(i) && !volatileStyleRead(fn, i); };
  InstId found = model::findReachable(fn, poll, other, stop, ctx.guardedReadsAfter(poll), mayStop);
  if (found < 0) return read;
  found = decidedReadAfter(ctx, poll, found, other, stop, mayStop);
  report::Diagnostic probe;
  addWaitEvidence(probe, ctx, poll, found);
  return probe.undecidedLink() ? read : found;
}

void markVolatileStyleReads(report::Diagnostic& d, const FunctionModel& fn, InstId read) {
  if (!d.disputed.empty() || !volatileStyleRead(fn, read)) return;
  d.disputed = fmt::format(
      "the partner's data is read after the wait with volatile-style loads, which bypass L1 (here {} at {}), issued "
      "only once the observed value has decided the exit: the PTX model asks for an acquire here, the CUDA "
      "Programming Guide's last-block example has none, and no GPU is known to return stale data to such a read",
      fmt::format("{}.{}", fn.instructions[read].syntax->opcode, fmt::join(fn.instructions[read].syntax->modifiers, ".")),
      describe(fn, read));
}

InstId addSignalEvidenceOfBestWrite(report::Diagnostic& d, const ProtocolModel& ctx, InstId signal, InstId nearest,
                                    const std::function<bool(InstId)>& published,
                                    const std::function<bool(InstId)>& stop, const std::vector<InstId>& mayStop,
                                    bool forScope) {
  const size_t mark = d.evidence.size();
  addSignalEvidence(d, ctx, signal, nearest, forScope);
  if (d.tier() == report::Tier::Default) return nearest;
  std::vector<InstId> all;
  model::findReachingBackward(
      ctx.function(), signal,
      [&](InstId i) {
        if (published(i)) all.push_back(i);
        return false;
      },
      stop, ctx.globalWrites(), mayStop);
  // A write's links are all decided (addSignalEvidence) when a read after a
  // wait that decidedly observes the signal decidedly reads it
  // (hasDecidedReader), or when no read after a wait may read it and the
  // partner link is decided: that link depends on the signal alone, so one
  // probe answers for every such write. Any other write has an undecided
  // reader. Asked per write from the model's sets, not by a readerOf walk of
  // every read for every write (issue 34).
  std::optional<bool> unreadDecided;
  for (InstId w : all) {
    bool decided = ctx.hasDecidedReader(w, signal);
    if (!decided && !ctx.hasReader(w, signal)) {
      if (!unreadDecided) {
        report::Diagnostic probe;
        addSignalEvidence(probe, ctx, signal, w, forScope);
        unreadDecided = probe.tier() == report::Tier::Default;
      }
      decided = *unreadDecided;
    }
    if (!decided) continue;
    report::Diagnostic probe;
    addSignalEvidence(probe, ctx, signal, w, forScope);
    if (probe.tier() != report::Tier::Default) continue;
    d.evidence.resize(mark);
    for (auto& link : probe.evidence) d.evidence.push_back(std::move(link));
    return w;
  }
  return nearest;
}

bool dependsOnSpecialRegister(const FunctionModel& fn, model::ValueReg reg, InstId at,
                              const std::function<bool(std::string_view)>& special) {
  std::set<std::pair<model::ValueReg, InstId>> seen;
  std::vector<std::pair<model::ValueReg, InstId>> work{{reg, at}};
  while (!work.empty() && seen.size() < 128) {
    auto [r, where] = work.back();
    work.pop_back();
    if (!seen.insert({r, where}).second) continue;
    for (InstId d : fn.values->reachingDefinitions(r, where)) {
      const auto& def = fn.instructions[d];
      if (def.effect.kind != model::EffectKind::None) continue;
      for (const auto& op : def.operands)
        if (op.kind == ptx::Operand::Kind::Special && special(op.text)) return true;
      for (model::ValueReg next : model::registerUse(def).read) work.push_back({next, d});
    }
  }
  return false;
}

bool dependsOnThreadIndex(const FunctionModel& fn, model::ValueReg reg, InstId at) {
  return dependsOnSpecialRegister(fn, reg, at,
                                  [](std::string_view name) { return name.starts_with("%tid") || name == "%laneid"; });
}

namespace {

bool leavesLoop(const FunctionModel& fn, model::BlockId from, model::BlockId to) {
  if (from >= static_cast<model::BlockId>(fn.loopOf.size())) return false;
  for (int32_t l = fn.loopOf[from]; l >= 0; l = fn.loops[l].parent) {
    const auto& blocks = fn.loops[l].blocks;
    if (!std::binary_search(blocks.begin(), blocks.end(), to)) return true;
  }
  return false;
}

}  // namespace

bool ThreadGuards::possiblyOneThread(InstId inst) {
  auto [cached, fresh] = oneThread_.try_emplace(inst, false);
  if (!fresh) return cached->second;
  const FunctionModel& fn = fn_;
  // At most one thread index in [0, 1024) for which the guard does not decidedly exclude it.
  auto single = [&](ptx::RegisterId predicate, InstId at, bool executesWhen) {
    int open = 0;
    const auto value = model::ThreadPredicate::ofThreadIndex(fn, predicate, at);
    for (int64_t tid = 0; tid < 1024 && open <= 1; ++tid) {
      std::optional<bool> v = value(tid);
      if (!v || *v == executesWhen) ++open;
    }
    return open <= 1;
  };
  const auto& guard = fn.instructions[inst].guard;
  bool result = guard && guard->reg >= 0 && single(guard->reg, inst, !guard->negated);
  // A branch whose target has it as its one predecessor and dominates the
  // instruction: the targets are the blocks of the dominator chain.
  for (model::BlockId s = fn.blockOf[inst]; !result && s >= 0;) {
    model::poll();
    if (fn.blocks[s].predecessors.size() == 1)
      if (const InstId br = model::conditionalBranch(fn, fn.blocks[s].predecessors[0]); br >= 0) {
        const auto& g = fn.instructions[br].guard;
        for (bool value : {true, false})
          if (model::branchTarget(fn, br, value) == s && single(g->reg, br, g->negated ? !value : value)) result = true;
      }
    const model::BlockId up = fn.idom[s];
    if (up == s) break;
    s = up;
  }
  cached->second = result;
  return result;
}

bool ThreadGuards::onThreadIndex(InstId branch) {
  auto [cached, fresh] = onThreadIndex_.try_emplace(branch, false);
  if (fresh) cached->second = dependsOnThreadIndex(fn_, fn_.instructions[branch].guard->reg, branch);
  return cached->second;
}

const std::vector<model::BlockId>& ThreadGuards::guardsOf(model::BlockId home) {
  auto [cached, fresh] = guards_.try_emplace(home);
  if (!fresh) return cached->second;
  std::vector<model::BlockId>& found = cached->second;
  for (model::BlockId b = 0; b < static_cast<model::BlockId>(fn_.blocks.size()); ++b) {
    model::poll();
    const InstId branch = model::conditionalBranch(fn_, b);
    if (branch < 0 || fn_.instructions[branch].guard->reg < 0) continue;
    for (model::BlockId s : fn_.blocks[b].successors) {
      if (fn_.blocks[s].predecessors.size() != 1 || !fn_.dominates(s, home)) continue;
      // A loop's exit (`for (i = tid; i < n; i += 128)`) excludes no thread: every one leaves.
      if (leavesLoop(fn_, b, s)) continue;
      if (onThreadIndex(branch)) found.push_back(s);
    }
  }
  return found;
}

bool ThreadGuards::apart(InstId signal, InstId write) {
  const FunctionModel& fn = fn_;
  const model::BlockId home = fn.blockOf[signal], there = fn.blockOf[write];
  // A write that at most one thread index executes (`if (tid == 0 && cta ==
  // 0) init`) may be the signalling thread's own: not decided.
  if (possiblyOneThread(write)) return false;
  // Its own predicate (`@%p red...`, an if-converted guard) on the thread index.
  const auto& own = fn.instructions[signal].guard;
  const auto& theirs = fn.instructions[write].guard;
  if (own && own->reg >= 0 && !(theirs && theirs->reg == own->reg && theirs->negated == own->negated) &&
      dependsOnThreadIndex(fn, own->reg, signal))
    return true;
  const std::vector<model::BlockId>& guards = guardsOf(home);
  return std::any_of(guards.begin(), guards.end(), [&](model::BlockId s) { return !fn.dominates(s, there); });
}

bool ThreadGuards::underThreadIndexGuard(InstId inst) {
  const auto& own = fn_.instructions[inst].guard;
  if (own && own->reg >= 0 && dependsOnThreadIndex(fn_, own->reg, inst)) return true;
  return !guardsOf(fn_.blockOf[inst]).empty();
}

std::string siteKey(const FunctionModel& fn, InstId inst) {
  auto chain = fn.sourceChain(inst);
  if (chain.empty()) return fmt::format("ptx:{}", fn.instructions[inst].syntax->pos.line);
  std::string key;
  for (const auto& frame : chain) key += fmt::format("{}:{}:{}|", frame.file, frame.line, frame.column);
  return key;
}

}  // namespace fenceline::checks::protocol

