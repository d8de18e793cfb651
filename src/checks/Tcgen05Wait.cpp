// Three tcgen05 checks.
// tcgen05-wait: tcgen05.ld and tcgen05.st are asynchronous. Before a thread
// tells others that tensor memory may be reused or consumed (an mbarrier
// arrive, bar.sync / bar.arrive, a cluster barrier arrive, tcgen05.dealloc)
// it must complete them: tcgen05.wait::ld for its loads, tcgen05.wait::st
// for its stores. Reported at the signal.
// tcgen05-fence: a hand-off of tcgen05 work from one thread to another
// through any thread synchronization is ordered only with
// tcgen05.fence::before_thread_sync before it (in the thread whose tcgen05
// work precedes it) and tcgen05.fence::after_thread_sync after it (in the
// thread whose tcgen05 work follows it). Reported at the synchronization
// (missing before-fence) or at the tcgen05 operation (missing after-fence).
// tmem-dealloc-race: tcgen05.dealloc by one warp while other threads'
// tcgen05 accesses reach it with no thread synchronization between.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "checks/ProxyCommon.h"
#include "model/GuardedRanges.h"
#include "model/Operands.h"
#include "model/Paths.h"
#include "model/ThreadRoles.h"

namespace fenceline::checks {

namespace {

using model::EffectKind;
using model::FunctionModel;
using model::InstId;
using model::ThreadSet;

EffectKind kindOf(const FunctionModel& fn, InstId i) { return fn.instructions[i].effect.kind; }

// tcgen05 operations whose order across threads the tcgen05 fences govern.
bool isTcgen05Work(const FunctionModel& fn, InstId i) {
  switch (kindOf(fn, i)) {
    case EffectKind::Tcgen05:
    case EffectKind::Tcgen05Load:
    case EffectKind::Tcgen05Store:
    case EffectKind::Tcgen05Alloc:
    case EffectKind::Tcgen05Dealloc: return true;
    default: return false;
  }
}

bool isTcgen05Commit(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return e.kind == EffectKind::MbarrierArrive && e.proxy == model::Proxy::Async;
}

// A thread synchronization a thread uses to hand something to others.
bool isThreadSyncSignal(const FunctionModel& fn, InstId i) {
  auto k = kindOf(fn, i);
  return k == EffectKind::CtaBarrier || k == EffectKind::CtaBarrierArrive || proxy::isHandOffArrive(fn, i);
}

// Whether a synchronization carries the memory ordering that the tcgen05
// fences otherwise supply. The field disputes whether a release arrive, an
// acquire wait or bar.sync orders tcgen05 work across threads: the ISA's
// canonical cross-thread patterns use .relaxed synchronization with the
// fences; NVIDIA's answer in NVIDIA/cutlass#2974 says the fences are needed
// with relaxed synchronization only, and CUTLASS, the CuTe DSL and Triton
// hand tcgen05 work over with release/acquire synchronization and no fences;
// TileLang (tile-ai/tilelang#1980) added them there. tcgen05-fence reports
// the relaxed case in the default tier and the release/acquire case as a
// disputed rule (strict tier, ../shared/ordering-rules.md).
bool releases(const FunctionModel& fn, InstId sync) {
  return model::hasReleaseSemantics(fn.instructions[sync].effect);
}

bool acquires(const FunctionModel& fn, InstId sync) {
  const auto& e = fn.instructions[sync].effect;
  if (e.kind == EffectKind::CtaBarrier && e.scope == model::Scope::Cluster) {
    // barrier.cluster.wait acquires what the arrives released: after
    // barrier.cluster.arrive.relaxed there is nothing to acquire.
    auto arrives = model::findReachingBackward(
        fn, sync,
        [&](InstId i) {
          const auto& a = fn.instructions[i].effect;
          return a.kind == EffectKind::CtaBarrierArrive && a.scope == model::Scope::Cluster;
        },
        [](InstId) { return false; });
    for (InstId a : arrives)
      if (!releases(fn, a)) return false;
  }
  return model::hasAcquireSemantics(e);
}

// A signal that tensor memory may be reused or consumed.
bool isReuseSignal(const FunctionModel& fn, InstId i) {
  return isThreadSyncSignal(fn, i) || kindOf(fn, i) == EffectKind::Tcgen05Dealloc;
}

// An operation that overwrites or frees tensor memory: tcgen05.mma and
// tcgen05.cp (and shift) write accumulators or scale factors, tcgen05.st
// writes it, tcgen05.dealloc gives it back.
bool writesOrFreesTensorMemory(const FunctionModel& fn, InstId i) {
  switch (kindOf(fn, i)) {
    case EffectKind::Tcgen05:
    case EffectKind::Tcgen05Store:
    case EffectKind::Tcgen05Dealloc: return true;
    default: return false;
  }
}

// Whether a signal hands the tensor memory a tcgen05.ld read to a writer:
// some thread may overwrite or free tensor memory after it. A dealloc frees
// it. A CTA barrier's (bar.sync, bar.arrive, barrier.cluster) participants
// continue from it, so such a write is reachable from it in the CFG. An
// mbarrier arrive hands over to the threads that wait on its barrier: a
// write reachable from one of those waits; when no wait of this function
// may be on its barrier, the waiter is out of sight and the arrive counts
// ("accumulator empty" to an MMA warp of another kernel). CUTLASS's
// Blackwell epilogue loads each accumulator subtile with tcgen05.ld, meets
// the other epilogue warps at a named barrier before the TMA store of the
// subtile and gives the C stage it read back to the C loader, waiting for
// its loads only before the arrive that gives the accumulator back to the
// MMA warp: the named barrier and the C-stage arrive hand no tensor memory.
bool handsLoadedTensorMemory(const FunctionModel& fn, InstId signal, const std::vector<InstId>& waits) {
  const EffectKind k = kindOf(fn, signal);
  auto writes = [&](InstId i) { return writesOrFreesTensorMemory(fn, i); };
  auto wholeCtaBarrier = [&](InstId i) {
    return model::isWholeCtaBarrier(*fn.instructions[i].syntax, fn.instructions[i].effect);
  };
  auto writeAfter = [&](InstId from, const std::function<bool(InstId)>& stop) {
    return !model::findAllReachable(fn, from, writes, stop, 1).empty();
  };
  auto never = [](InstId) { return false; };
  // After a barrier every thread waits at, a write that only a later such
  // barrier leads to is behind that barrier, where the loading thread's own
  // walk tests its wait again (Triton's Blackwell attention backward:
  // tcgen05.ld of dq, bar.sync, tcgen05.wait::ld, the layout conversion,
  // bar.sync, and only then the next tcgen05.mma).
  if (k == EffectKind::CtaBarrier && wholeCtaBarrier(signal)) return writeAfter(signal, wholeCtaBarrier);
  if (k == EffectKind::CtaBarrier || k == EffectKind::CtaBarrierArrive) return writeAfter(signal, never);
  if (k != EffectKind::MbarrierArrive) return true;
  bool waited = false;
  for (InstId w : waits) {
    if (!proxy::sameBarrier(fn, signal, w)) continue;
    if (writeAfter(w, never)) return true;
    waited = true;
  }
  return !waited;
}

// The tensor-memory columns a tcgen05.ld or .st touches from its address:
// shape 32x32b and 16x64b move N columns for .xN, 16x128b 2N, 16x256b 4N;
// 0 when the instruction is none of those.
int64_t tmemColumns(const FunctionModel& fn, InstId i) {
  const auto& in = fn.instructions[i];
  int64_t repeat = 0;
  for (const auto& m : in.syntax->modifiers)
    if (m.size() > 1 && m[0] == 'x' && std::all_of(m.begin() + 1, m.end(), [](char c) { return c >= '0' && c <= '9'; }))
      repeat = std::stoll(std::string(m.substr(1)));
  if (repeat == 0) return 0;
  if (in.hasModifier("32x32b") || in.hasModifier("16x64b")) return repeat;
  if (in.hasModifier("16x128b")) return 2 * repeat;
  if (in.hasModifier("16x256b")) return 4 * repeat;
  return 0;
}

// Two tcgen05 loads or stores at addresses that differ by a constant (the
// same lane bits and allocation base, other column offsets) touch disjoint
// columns when their ranges do not meet.
bool tmemColumnsApart(const FunctionModel& fn, InstId a, InstId b) {
  const int64_t wa = tmemColumns(fn, a), wb = tmemColumns(fn, b);
  const int oa = fn.instructions[a].effect.address, ob = fn.instructions[b].effect.address;
  if (wa <= 0 || wb <= 0 || oa < 0 || ob < 0 || !fn.values) return false;
  const model::AbstractValue va = fn.values->operandValue(a, oa), vb = fn.values->operandValue(b, ob);
  if (!va.known || !vb.known || va.baseKind != vb.baseKind || va.base != vb.base || va.terms.size() != vb.terms.size())
    return false;
  for (size_t k = 0; k < va.terms.size(); ++k)
    if (va.terms[k].name != vb.terms[k].name || va.terms[k].coefficient != vb.terms[k].coefficient) return false;
  const int64_t d = va.constant - vb.constant;  // column offset of a from b (within one lane window)
  if (d >= 65536 || d <= -65536) return false;
  return d >= wb || -d >= wa;
}

// The evidence that `signal` hands tensor memory to a thread that uses it: a
// dealloc frees it; a tcgen05 write or dealloc (for a load; any tcgen05 work
// for a store) after the barrier and before any other synchronization, or
// after a wait on the arrive's barrier, in the waiter's round (before it
// waits on that barrier again). A write reached only through further barriers or around a loop
// is no decided link: the barrier may hand over other memory (shared-memory
// statistics, a staging buffer) while the tensor memory goes back elsewhere.
report::EvidenceLink handOffEvidence(const FunctionModel& fn, InstId operation, InstId signal, bool load,
                                     const std::vector<InstId>& waits) {
  if (kindOf(fn, signal) == EffectKind::Tcgen05Dealloc)
    return report::link(fn, report::LinkKind::HandOff, signal, "dealloc", "the tensor memory is freed here");
  // After a load, what matters is a write (or a dealloc); after a store, any
  // use of tensor memory.
  // A use of other columns than the operation's own is no use of its memory.
  auto writes = [&](InstId i) {
    if (!(load ? writesOrFreesTensorMemory(fn, i)
               : isTcgen05Work(fn, i) && kindOf(fn, i) != EffectKind::Tcgen05Alloc))
      return false;
    return !tmemColumnsApart(fn, operation, i);
  };
  auto sync = [&](InstId i) {
    const EffectKind k = kindOf(fn, i);
    return k == EffectKind::CtaBarrier || k == EffectKind::CtaBarrierArrive || k == EffectKind::MbarrierWait;
  };
  const EffectKind k = kindOf(fn, signal);
  if (k == EffectKind::CtaBarrier || k == EffectKind::CtaBarrierArrive) {
    InstId w = model::findReachable(fn, signal, writes, sync);
    if (w >= 0)
      return report::link(fn, report::LinkKind::HandOff, signal, "tensor-memory-use-follows",
                          "tcgen05 work that may touch that tensor memory follows this barrier before any other "
                          "synchronization");
    return report::undecidedLink(fn, report::LinkKind::HandOff, signal, "no-tensor-memory-use",
                                 "no tcgen05 work follows this barrier before another synchronization: it may hand "
                                 "over other memory");
  }
  // The waiter's round: up to its next wait on this barrier.
  for (InstId w : waits) {
    if (!proxy::sameBarrier(fn, signal, w)) continue;
    if (model::findReachable(fn, w, writes, [&](InstId i) { return i == w; }) >= 0)
      return report::link(fn, report::LinkKind::HandOff, signal, "tensor-memory-use-waits",
                          "a thread that waits on this barrier then uses or frees tensor memory");
  }
  return report::undecidedLink(fn, report::LinkKind::HandOff, signal, "no-tensor-memory-use",
                               "no wait on this barrier in the kernel is followed by tcgen05 work that may touch the "
                               "tensor memory");
}

// Every path from the tcgen05.ld to the signal reads one of its destination
// registers: the loaded values were delivered before the signal.
bool registersConsumedBefore(const FunctionModel& fn, InstId load, InstId signal) {
  const std::vector<model::ValueReg> loaded = model::writtenRegisters(fn.instructions[load]);
  if (loaded.empty()) return false;
  auto reads = [&](InstId i) {
    bool found = false;
    model::visitRegisters(fn.instructions[i], [&](model::ValueReg r, bool written) {
      if (!written && std::find(loaded.begin(), loaded.end(), r) != loaded.end()) found = true;
    });
    return found;
  };
  return model::everyPathPasses(fn, load, signal, reads);
}

// tcgen05.alloc, relinquish_alloc_permit and dealloc are warp-wide
// (.sync.aligned) and made by the warp that owns the allocation: a pair of
// them is never a hand-off between threads, whatever the thread roles say
// about the branches around them (CUTLASS's TmemAllocator; the shape of
// tests/checks/realcode/tcgen05_commit_multicast.cu).
bool isAllocationManagement(const FunctionModel& fn, InstId i) {
  return kindOf(fn, i) == EffectKind::Tcgen05Alloc || kindOf(fn, i) == EffectKind::Tcgen05Dealloc;
}

// Thread roles tell sets, not identities: two operations under the same
// set (the allocating warp that later deallocates, the elected MMA issuer's
// own sequence, every warp on its own TMEM lane quarter) are taken as made
// by the same threads; under different sets (warp 0 allocates, an elected
// lane of warp 1 issues tcgen05.mma, the epilogue warps tcgen05.ld) as a
// hand-off between threads.
bool possiblyOtherThread(const FunctionModel& fn, InstId a, InstId b) {
  if (!fn.roles) return true;
  if (isAllocationManagement(fn, a) && isAllocationManagement(fn, b)) return false;
  return fn.roles->instructionSet(a) != fn.roles->instructionSet(b);
}

auto never = [](InstId) { return false; };

struct Report {
  InstId at = -1;
  InstId other = -1;
  enum Kind { MissingWaitLd, MissingWaitSt, MissingBefore, MissingAfter } kind = MissingWaitLd;
  // For a missing wait: how the signal hands the tensor memory over (and
  // whether that is decided), and whether the loaded registers are consumed
  // on every path to the signal (the load is then complete in practice: the
  // field disputes the rule, strict tier).
  report::EvidenceLink handOff;
  bool registersConsumed = false;
};

report::Diagnostic renderReport(const FunctionModel& fn, const Report& r);

// The links: the tcgen05 operation and the synchronization that hands its
// tensor memory (or its work) to another thread, both on this thread's path.
// The fix at the hand-off: the wait (.sync.aligned: the whole warp executes it) before the
// statement that elects the signalling thread, or the signal itself when the issuing threads
// signal; the before-fence right before the synchronization; the after-fence once after the wait
// (after its spin loop when the tcgen05 operation is outside that loop), else right before the
// tcgen05 operation.
report::FixRequest handOffFix(const FunctionModel& fn, const Report& r) {
  using report::FenceToInsert;
  report::FixRequest request;
  switch (r.kind) {
    case Report::MissingWaitLd:
    case Report::MissingWaitSt: {
      const InstId anchor = outsideElection(fn, r.at, r.other);
      if (anchor < 0)
        return noMachineFix("the statement that elects the signalling thread was not found; insert the wait before "
                            "it by hand, where the whole warp that issued the tcgen05 operation executes it");
      request = insertBefore(fn, anchor,
                             r.kind == Report::MissingWaitLd ? FenceToInsert::Tcgen05WaitLoad
                                                             : FenceToInsert::Tcgen05WaitStore);
      break;
    }
    case Report::MissingBefore: request = insertBefore(fn, r.at, FenceToInsert::Tcgen05FenceBefore); break;
    case Report::MissingAfter: {
      const int32_t loop = fn.loopOf[fn.blockOf[r.other]];
      const bool afterLoop = loop >= 0 && !std::binary_search(fn.loops[loop].blocks.begin(),
                                                              fn.loops[loop].blocks.end(), fn.blockOf[r.at]);
      if (afterLoop) {
        request = insertAfterLoop(fn, r.other, FenceToInsert::Tcgen05FenceAfter, "");
        request.before.push_back(report::locationOf(fn, r.at));
        request.beforeHelperCall = true;
        return request;
      }
      request = insertBefore(fn, r.at, FenceToInsert::Tcgen05FenceAfter);
      break;
    }
  }
  request.beforeHelperCall = true;
  request.after.push_back(report::locationOf(fn, r.other));
  return request;
}

report::Diagnostic render(const FunctionModel& fn, const Report& r) {
  report::Diagnostic d = renderReport(fn, r);
  d.fixRequest = handOffFix(fn, r);
  const bool workFirst = r.kind != Report::MissingAfter;
  d.evidence.push_back(report::link(fn, report::LinkKind::Access, workFirst ? r.other : r.at, "tcgen05-operation"));
  if (r.kind == Report::MissingWaitLd || r.kind == Report::MissingWaitSt)
    d.evidence.push_back(r.handOff);
  else
    d.evidence.push_back(report::link(fn, report::LinkKind::HandOff, workFirst ? r.at : r.other, "thread-sync",
                                      "the synchronization passes the tcgen05 work to another thread"));
  if (r.registersConsumed)
    d.disputed = "every path from the tcgen05.ld to the signal uses its destination registers, so the load has "
                 "delivered its data before the signal; the ISA asks for tcgen05.wait::ld before the tensor memory is "
                 "handed over, while kernels such as FlashAttention 4 rely on the register dependence";
  return d;
}

report::Diagnostic renderReport(const FunctionModel& fn, const Report& r) {
  const std::string at = proxy::describe(fn, r.at);
  switch (r.kind) {
    case Report::MissingWaitLd:
    case Report::MissingWaitSt: {
      const bool ld = r.kind == Report::MissingWaitLd;
      auto d = protocol::makeDiagnostic(
          fn, r.at, "tcgen05-wait",
          fmt::format("this {} tells other threads the tensor memory may be reused, but a tcgen05.{} before it has "
                      "not been waited for (tcgen05.wait::{})",
                      at, ld ? "ld" : "st", ld ? "ld" : "st"),
          fmt::format("insert tcgen05.wait::{}.sync.aligned after the tcgen05.{} and before the {}, executed by the "
                      "thread that issued the tcgen05.{} (CUTLASS fence_view_async_tmem_{}())",
                      ld ? "ld" : "st", ld ? "ld" : "st", at, ld ? "ld" : "st", ld ? "load" : "store"));
      protocol::addNote(d, fn, r.other, fmt::format("asynchronous tcgen05.{} still in flight at the signal",
                                                    ld ? "ld" : "st"));
      return d;
    }
    case Report::MissingBefore: {
      auto d = protocol::makeDiagnostic(
          fn, r.at, "tcgen05-wait",
          fmt::format("this {} hands tcgen05 work to another thread without tcgen05.fence::before_thread_sync "
                      "before it",
                      at),
          "insert tcgen05.fence::before_thread_sync between the thread's tcgen05 operations and this "
          "synchronization (cuda::ptx::tcgen05_fence_before_thread_sync())");
      protocol::addNote(d, fn, r.other, "tcgen05 operation ordered before the synchronization");
      return d;
    }
    case Report::MissingAfter: break;
  }
  auto d = protocol::makeDiagnostic(
      fn, r.at, "tcgen05-wait",
      fmt::format("this {} follows a thread synchronization that hands over another thread's tcgen05 work, "
                  "without tcgen05.fence::after_thread_sync between them",
                  at),
      "insert tcgen05.fence::after_thread_sync after the synchronization (the wait or bar.sync) and before this "
      "tcgen05 operation (cuda::ptx::tcgen05_fence_after_thread_sync())");
  protocol::addNote(d, fn, r.other, "the synchronization it follows");
  return d;
}

}  // namespace

void checkTcgen05Wait(const model::FunctionModel& fn, Findings& out) {
  std::vector<InstId> work, waits;
  bool any = false;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (isTcgen05Work(fn, i)) work.push_back(i);
    if (kindOf(fn, i) == EffectKind::MbarrierWait) waits.push_back(i);
    any = any || isTcgen05Work(fn, i) || isTcgen05Commit(fn, i);
  }
  if (!any) return;
  std::map<std::string, bool> reported;
  auto emit = [&](const Report& r) {
    if (reported.try_emplace(protocol::siteKey(fn, r.at) + std::to_string(int(r.kind)), true).second)
      out.push_back(render(fn, r));
  };
  auto isKind = [&](EffectKind k) { return [&fn, k](InstId i) { return kindOf(fn, i) == k; }; };

  // 1. Loads and stores completed before a reuse signal.
  std::map<InstId, bool> handsLoadedMemo;
  auto handsLoaded = [&](InstId signal) {
    auto [it, fresh] = handsLoadedMemo.try_emplace(signal, false);
    if (fresh) it->second = handsLoadedTensorMemory(fn, signal, waits);
    return it->second;
  };
  for (InstId x : work) {
    const EffectKind k = kindOf(fn, x);
    if (k != EffectKind::Tcgen05Load && k != EffectKind::Tcgen05Store) continue;
    auto wait = isKind(k == EffectKind::Tcgen05Load ? EffectKind::Tcgen05WaitLoad : EffectKind::Tcgen05WaitStore);
    // A store must complete before any later use of the tensor memory; a
    // load only before the memory is overwritten or freed (the walk goes on
    // past a barrier that hands nothing, to the signals behind it).
    auto handOff = [&](InstId i) {
      return isReuseSignal(fn, i) && (k == EffectKind::Tcgen05Store || handsLoaded(i));
    };
    for (InstId s : model::findAllReachable(fn, x, handOff, wait)) {
      Report r{s, x, k == EffectKind::Tcgen05Load ? Report::MissingWaitLd : Report::MissingWaitSt};
      r.handOff = handOffEvidence(fn, x, s, k == EffectKind::Tcgen05Load, waits);
      r.registersConsumed = k == EffectKind::Tcgen05Load && registersConsumedBefore(fn, x, s);
      emit(r);
    }
  }
}

namespace {

// A thread synchronization at which a thread waits for others: bar.sync /
// barrier.sync (named or not, cluster wait), an mbarrier wait.
bool isSyncWait(const FunctionModel& fn, InstId i) {
  const EffectKind k = kindOf(fn, i);
  return k == EffectKind::CtaBarrier || k == EffectKind::MbarrierWait;
}

// Why two tcgen05 operations are made by different threads (the partner
// link): decided when the thread-index ranges of their guards do not meet
// (warp roles), when no thread's path executes both (the two branches of a
// role test), or when one sits under a branch on the thread index that the
// other does not (protocol::ThreadGuards::apart: the threads that skip it
// execute the other), or when by thread roles one runs on more threads than
// the other. Thread roles that merely differ are not decided.
struct Apart {
  bool decided = false;
  std::string how, detail;
};

Apart threadsApart(const FunctionModel& fn, protocol::ThreadGuards& guards, InstId x, InstId y) {
  constexpr std::pair<int64_t, int64_t> kAnyThread{0, int64_t(1) << 20};
  const auto rx = model::guardedRange(fn, x, "%tid.x", kAnyThread);
  const auto ry = model::guardedRange(fn, y, "%tid.x", kAnyThread);
  if (rx.second < ry.first || ry.second < rx.first)
    return {true, "disjoint-thread-ranges",
            fmt::format("threads {}..{} execute one and threads {}..{} the other", rx.first,
                        std::min<int64_t>(rx.second, 1023), ry.first, std::min<int64_t>(ry.second, 1023))};
  if (!model::reachable(fn, x, y) && !model::reachable(fn, y, x))
    return {true, "exclusive-branches", "no thread's path executes both (different branches of a role test)"};
  if (guards.apart(y, x) || guards.apart(x, y))
    return {true, "thread-index-guard",
            "one sits under a branch on the thread index that the other does not: the threads that skip that "
            "branch execute the other"};
  // By thread roles, one runs on more threads than the other (the rule
  // release-missing's other-threads link follows): every thread against a
  // warp, an elected thread or a subset (every thread runs the first, so
  // threads other than the second's do), a warp against an elected thread.
  if (fn.roles) {
    auto wider = [](ThreadSet a, ThreadSet b) {
      if (a == ThreadSet::All) return b != ThreadSet::All;
      if (a == ThreadSet::OneWarp)
        return b == ThreadSet::OneLane || b == ThreadSet::OneThread || b == ThreadSet::OneBlockThread;
      return a == ThreadSet::OneLane && (b == ThreadSet::OneThread || b == ThreadSet::OneBlockThread);
    };
    const ThreadSet sx = fn.roles->instructionSet(x), sy = fn.roles->instructionSet(y);
    if (wider(sx, sy) || wider(sy, sx))
      return {true, "more-threads",
              fmt::format("by thread roles one runs on {} and the other on {}: threads of the first are not the "
                          "second's",
                          model::toString(wider(sx, sy) ? sx : sy), model::toString(wider(sx, sy) ? sy : sx))};
  }
  return {false, "same-thread-possible",
          "the thread roles differ, but the analysis cannot show that different threads execute the two"};
}

// The same mbarrier, with its evidence (an arrive or tcgen05.commit and a wait).
model::AliasEvidence barrierEvidence(const FunctionModel& fn, InstId a, InstId b) {
  auto operand = [&](InstId i) {
    const auto& e = fn.instructions[i].effect;
    return e.address >= 0 ? int(e.address) : int(e.mbarrier);
  };
  model::AliasEvidence none;
  none.how = "unknown-barrier";
  none.detail = "the barrier word of one of the two is not known";
  if (!fn.memory || operand(a) < 0 || operand(b) < 0) return none;
  return fn.memory->aliasEvidence(a, operand(a), 0, b, operand(b), 0, /*barriers=*/true);
}

// A bar.arrive and a barrier at which others wait for it: a named barrier
// arrive and bar.sync on the same id (std::nullopt: an id the analysis does
// not know), a cluster arrive and barrier.cluster.wait.
std::optional<bool> arriveMeetsBarrier(const FunctionModel& fn, InstId arrive, InstId barrier) {
  if (kindOf(fn, barrier) != EffectKind::CtaBarrier) return false;
  const bool clusterArrive = fn.instructions[arrive].effect.scope == model::Scope::Cluster;
  const bool clusterWait = fn.instructions[barrier].effect.scope == model::Scope::Cluster;
  if (clusterArrive || clusterWait) return clusterArrive && clusterWait;
  if (!proxy::isNamedBarrierArrive(fn, arrive) || !proxy::isNamedBarrierSync(fn, barrier)) return false;
  return proxy::sameNamedBarrier(fn, arrive, barrier);
}

struct FenceFinding {
  InstId at = -1;       // where the fence is missing: the synchronization (before) or the tcgen05 operation (after)
  InstId work = -1;     // this thread's tcgen05 operation
  InstId sync = -1;     // the synchronization
  InstId partner = -1;  // the other thread's tcgen05 operation (or tcgen05.commit) on the other side
  InstId wait = -1;     // for an mbarrier hand-off: the wait (before) or the arrive / commit (after), else -1
  bool before = true;
  bool direct = false;  // the partner is on the other side of this synchronization, no other one between
  Apart apart;
  model::AliasEvidence sameBarrier;
  bool ordered = false;  // the synchronization is a release (before) or an acquire (after): a disputed rule
  bool decided() const { return direct && apart.decided && (wait < 0 || sameBarrier.same()); }
  bool defaultTier() const { return decided() && !ordered; }
};

report::Diagnostic renderFence(const FunctionModel& fn, const FenceFinding& f) {
  Report r;
  r.at = f.at;
  r.other = f.before ? f.work : f.sync;
  r.kind = f.before ? Report::MissingBefore : Report::MissingAfter;
  report::Diagnostic d = renderReport(fn, r);
  d.check = "tcgen05-fence";
  d.fixRequest = handOffFix(fn, r);
  using report::LinkKind;
  d.evidence.push_back(report::link(fn, LinkKind::Access, f.work, "tcgen05-operation"));
  const bool barrier = kindOf(fn, f.sync) == EffectKind::CtaBarrier || kindOf(fn, f.sync) == EffectKind::CtaBarrierArrive;
  if (f.direct)
    d.evidence.push_back(report::link(fn, LinkKind::HandOff, f.sync, barrier ? "bar.sync" : "mbarrier",
                                      f.before ? "the other thread's tcgen05 operation follows this synchronization "
                                                 "with no other synchronization between"
                                               : "the other thread's tcgen05 work reaches this synchronization with "
                                                 "no other synchronization between"));
  else
    d.evidence.push_back(report::undecidedLink(
        fn, LinkKind::HandOff, f.sync, f.before ? "later-synchronization" : "earlier-synchronization",
        f.before ? "the other thread's tcgen05 operation is behind a further synchronization, which may be the "
                   "hand-off instead (with its fences)"
                 : "the other thread's tcgen05 work is before a further synchronization, which may be the hand-off "
                   "instead (with its fences)"));
  if (f.wait >= 0)
    d.evidence.push_back(report::link(fn, f.before ? LinkKind::Poll : LinkKind::Signal, f.wait,
                                      f.sameBarrier.same() ? "same-barrier" : "wait-" + f.sameBarrier.how,
                                      f.sameBarrier.detail, f.sameBarrier.same()));
  d.evidence.push_back(
      report::link(fn, LinkKind::Partner, f.partner, f.apart.how, f.apart.detail, f.apart.decided));
  protocol::addNote(d, fn, f.partner,
                    f.before ? "another thread's tcgen05 operation after the synchronization"
                             : "another thread's tcgen05 work before the synchronization");
  if (f.ordered)
    d.disputed = f.before ? "the synchronization is a release; whether a release orders earlier tcgen05 work "
                            "without tcgen05.fence::before_thread_sync is disputed (the ISA's patterns fence "
                            "relaxed synchronization; NVIDIA/cutlass#2974)"
                          : "the synchronization is an acquire; whether an acquire orders later tcgen05 work "
                            "without tcgen05.fence::after_thread_sync is disputed (the ISA's patterns fence "
                            "relaxed synchronization; NVIDIA/cutlass#2974)";
  return d;
}

// One finding per site and kind: the first found, replaced by a default-tier one
// (all links decided, the synchronization relaxed), else by one whose links are all decided.
struct FenceFindings {
  std::vector<FenceFinding> found;
  std::map<std::string, size_t> index;
  void add(const FunctionModel& fn, const FenceFinding& f) {
    const std::string key = protocol::siteKey(fn, f.at) + (f.before ? "b" : "a");
    auto [it, fresh] = index.try_emplace(key, found.size());
    if (fresh) found.push_back(f);
    else if (f.defaultTier() ? !found[it->second].defaultTier()
                             : f.decided() && !found[it->second].decided())
      found[it->second] = f;
  }
};

}  // namespace

// tcgen05-fence: tcgen05 work of one thread handed to another thread's
// tcgen05 work through a thread synchronization (bar.sync / barrier.cta,
// bar.arrive, an mbarrier arrive and a wait on it, tcgen05.commit and a
// wait, a cluster barrier) needs tcgen05.fence::before_thread_sync in the
// first thread between its tcgen05 operation and the synchronization and
// tcgen05.fence::after_thread_sync in the second between the
// synchronization and its tcgen05 operation (PTX ISA, tcgen05 memory
// consistency model; ../shared/ordering-rules.md, "tcgen05 completion"):
// whatever the synchronization's semantics, since a release or acquire
// orders memory accesses, not the asynchronous tcgen05 operations.
void checkTcgen05Fence(const model::FunctionModel& fn, Findings& out) {
  // The operations each step pairs, listed once: tcgen05 work, mbarrier
  // waits, barriers (bar.sync, cluster wait), barrier arrives, and the
  // mbarrier arrives (tcgen05.commit, hand-off arrives).
  std::vector<InstId> work, waits, barriers, barrierArrives, mbarrierArrives;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    const EffectKind k = kindOf(fn, i);
    if (isTcgen05Work(fn, i)) work.push_back(i);
    if (k == EffectKind::MbarrierWait) waits.push_back(i);
    if (k == EffectKind::CtaBarrier) barriers.push_back(i);
    if (k == EffectKind::CtaBarrierArrive) barrierArrives.push_back(i);
    if (isTcgen05Commit(fn, i) || proxy::isHandOffArrive(fn, i)) mbarrierArrives.push_back(i);
  }
  if (work.empty()) return;
  protocol::ThreadGuards guards(fn);
  // The tcgen05 work before an arrive (the nearest on each path; `near`:
  // those with no synchronization at which the thread waits between), once per arrive.
  struct Before {
    std::vector<InstId> all, near;
  };
  std::map<InstId, Before> beforeMemo;
  auto workBefore = [&](InstId a) -> const Before& {
    auto [it, fresh] = beforeMemo.try_emplace(a);
    if (fresh) {
      it->second.near = model::findReachingBackward(fn, a, [&](InstId i) { return isTcgen05Work(fn, i); },
                                                    [&](InstId i) { return isSyncWait(fn, i); });
      it->second.all = model::findReachingBackward(fn, a, [&](InstId i) { return isTcgen05Work(fn, i); }, never);
    }
    return it->second;
  };
  FenceFindings findings;
  auto isWork = [&](InstId i) { return isTcgen05Work(fn, i); };
  auto syncWait = [&](InstId i) { return isSyncWait(fn, i); };
  auto isKind = [&](EffectKind k) { return [&fn, k](InstId i) { return kindOf(fn, i) == k; }; };

  // The tcgen05 work on the other side of a synchronization: after the
  // barrier (bar.sync), after a bar.sync on the same named barrier (bar.arrive),
  // after a wait on the arrive's barrier. `direct`: reached before any other
  // synchronization at which the thread waits.
  struct Side {
    InstId y, wait;
    bool direct;
    model::AliasEvidence same;
  };
  std::map<InstId, std::vector<Side>> sidesMemo;
  auto sidesAfter = [&](InstId sync) -> const std::vector<Side>& {
    auto [it, fresh] = sidesMemo.try_emplace(sync);
    if (!fresh) return it->second;
    std::vector<Side>& sides = it->second;
    auto from = [&](InstId start, InstId wait, const model::AliasEvidence& same, bool decidedStart) {
      std::vector<InstId> direct = model::findAllReachable(fn, start, isWork, syncWait);
      for (InstId y : model::findAllReachable(fn, start, isWork, never)) {
        const bool d = decidedStart && std::find(direct.begin(), direct.end(), y) != direct.end();
        sides.push_back({y, wait, d, same});
      }
    };
    const EffectKind k = kindOf(fn, sync);
    if (k == EffectKind::MbarrierArrive) {
      for (InstId w : waits)
        if (proxy::sameBarrier(fn, sync, w)) from(w, w, barrierEvidence(fn, sync, w), true);
    } else if (k == EffectKind::CtaBarrierArrive) {
      for (InstId b : barriers) {
        const std::optional<bool> same = arriveMeetsBarrier(fn, sync, b);
        if (same && !*same) continue;
        from(b, -1, {}, same.has_value());
      }
    } else {
      from(sync, -1, {}, true);
    }
    return sides;
  };

  // 1. Before-fence: tcgen05 work -> thread sync, another thread's tcgen05 work after it.
  auto before = isKind(EffectKind::Tcgen05FenceBefore);
  for (InstId x : work) {
    for (InstId s : model::findAllReachable(fn, x, [&](InstId i) { return isThreadSyncSignal(fn, i); }, before)) {
      std::optional<FenceFinding> best;
      for (const Side& side : sidesAfter(s)) {
        // A tcgen05.alloc (or relinquish_alloc_permit) consumes no earlier
        // tcgen05 work: the columns it returns are free.
        if (kindOf(fn, side.y) == EffectKind::Tcgen05Alloc) continue;
        if (!possiblyOtherThread(fn, x, side.y) || tmemColumnsApart(fn, x, side.y)) continue;
        FenceFinding f{s, x, s, side.y, side.wait, true, side.direct, {}, side.same, releases(fn, s)};
        if (best && (best->decided() || (!f.direct && best->direct))) continue;
        f.apart = threadsApart(fn, guards, x, side.y);
        if (!best || f.decided() || (f.direct && !best->direct)) best = f;
        if (best->decided()) break;
      }
      if (best) findings.add(fn, *best);
    }
  }

  // 2. After-fence: a synchronization that follows another thread's tcgen05
  // work (bar.sync reached from it; a wait on a barrier that tcgen05.commit
  // or an arrive reached from tcgen05 work completes), then tcgen05 work.
  auto afterFence = isKind(EffectKind::Tcgen05FenceAfter);
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    const EffectKind k = kindOf(fn, i);
    if (k != EffectKind::CtaBarrier && k != EffectKind::MbarrierWait) continue;
    // The other side: (tcgen05 work or commit, arrive or -1, direct, same barrier).
    struct Source {
      InstId x, arrive;
      bool direct;
      model::AliasEvidence same;
    };
    std::vector<Source> sources;
    if (k == EffectKind::CtaBarrier) {
      std::vector<InstId> direct = model::findReachingBackward(fn, i, isWork, syncWait);
      for (InstId x : model::findReachingBackward(fn, i, isWork, never))
        sources.push_back({x, -1, std::binary_search(direct.begin(), direct.end(), x), {}});
      // bar.arrive on the same named barrier, after tcgen05 work.
      for (InstId a : barrierArrives) {
        const std::optional<bool> same = arriveMeetsBarrier(fn, a, i);
        if (same && !*same) continue;
        const Before& b = workBefore(a);
        for (InstId x : b.all)
          sources.push_back({x, -1, same.has_value() && std::binary_search(b.near.begin(), b.near.end(), x), {}});
      }
    } else {
      for (InstId a : mbarrierArrives) {
        if (!proxy::sameBarrier(fn, a, i)) continue;
        if (isTcgen05Commit(fn, a)) {
          sources.push_back({a, a, true, barrierEvidence(fn, a, i)});
        } else {
          const Before& b = workBefore(a);
          for (InstId x : b.all)
            sources.push_back({x, a, std::binary_search(b.near.begin(), b.near.end(), x), barrierEvidence(fn, a, i)});
        }
      }
    }
    if (sources.empty()) continue;
    const bool acquiresHere = acquires(fn, i);
    // Every tcgen05 operation reached from the synchronization without the
    // after-fence: one behind a later synchronization has no fence after
    // this one either (the source, though, must reach this synchronization
    // before any other: a fence after an earlier one orders it).
    for (InstId y : model::findAllReachable(fn, i, isWork, afterFence)) {
      // Allocation management after a wait on an mbarrier (teardown) is left
      // alone; an allocation consumes no earlier tcgen05 work.
      if (k == EffectKind::MbarrierWait && isAllocationManagement(fn, y)) continue;
      if (kindOf(fn, y) == EffectKind::Tcgen05Alloc) continue;
      std::optional<FenceFinding> best;
      for (const Source& src : sources) {
        // A commit is made by the thread whose tcgen05 work it tracks.
        if (!possiblyOtherThread(fn, src.x, y) || tmemColumnsApart(fn, src.x, y)) continue;
        FenceFinding f{y, y, i, src.x, src.arrive, false, src.direct, {}, src.same, acquiresHere};
        if (best && (best->decided() || (!f.direct && best->direct))) continue;
        f.apart = threadsApart(fn, guards, src.x, y);
        if (!best || f.decided() || (f.direct && !best->direct)) best = f;
        if (best->decided()) break;
      }
      if (best) findings.add(fn, *best);
    }
  }
  // Default-tier findings first, then the other decided ones: the report
  // keeps one finding per check and line, the first (a missing before-fence
  // and a missing after-fence on one line of a kernel's source), which must
  // not be a strict-tier one when a default-tier one is on the line.
  std::stable_partition(findings.found.begin(), findings.found.end(),
                        [](const FenceFinding& f) { return f.decided(); });
  std::stable_partition(findings.found.begin(), findings.found.end(),
                        [](const FenceFinding& f) { return f.defaultTier(); });
  for (const FenceFinding& f : findings.found) out.push_back(renderFence(fn, f));
}

// tmem-dealloc-race: tcgen05.dealloc frees tensor memory at once; a warp
// that executes it must be ordered after every other warp's tcgen05
// accesses to that memory by a thread synchronization (with the tcgen05
// fences, which tcgen05-fence asks for). Reported: a tcgen05 access (mma,
// cp, shift, ld, st) from which a CFG path reaches the dealloc without
// passing a synchronization at which a thread waits, made by other threads
// than the dealloc (the warps that run the same code and skip the
// deallocating warp's branch). An access in another role's branch, which
// no path joins to the dealloc, is not examined.
void checkTmemDeallocRace(const model::FunctionModel& fn, Findings& out) {
  std::vector<InstId> deallocs, accesses;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (kindOf(fn, i) == EffectKind::Tcgen05Dealloc) deallocs.push_back(i);
    else if (isTcgen05Work(fn, i) && !isAllocationManagement(fn, i)) accesses.push_back(i);
  }
  if (deallocs.empty() || accesses.empty()) return;
  protocol::ThreadGuards guards(fn);
  std::map<std::string, bool> reported;
  auto syncWait = [&](InstId i) { return isSyncWait(fn, i); };
  // The base of a tensor-memory address (the value read from the allocation's slot).
  auto sameAllocation = [&](InstId a, InstId d) -> model::AliasEvidence {
    model::AliasEvidence e;
    e.how = "unknown-allocation";
    e.detail = "the analysis cannot tell that the access's address comes from the freed allocation";
    const int oa = fn.instructions[a].effect.address;
    if (!fn.values || oa < 0) return e;
    int od = fn.instructions[d].effect.address;
    if (od < 0) od = 0;
    const model::AbstractValue va = fn.values->operandValue(a, oa), vd = fn.values->operandValue(d, od);
    if (va.known && vd.known && va.baseKind == vd.baseKind && va.base == vd.base) {
      e.decided = true;
      e.result = model::AliasResult::Must;
      e.how = "same-allocation";
      e.detail = "the access's address and the freed address come from one tensor-memory address";
    }
    return e;
  };
  for (InstId d : deallocs) {
    std::optional<std::pair<InstId, std::pair<Apart, model::AliasEvidence>>> best;
    for (InstId a : model::findReachingBackward(fn, d, [&](InstId i) {
           return isTcgen05Work(fn, i) && !isAllocationManagement(fn, i);
         }, syncWait)) {
      // Different roles, or the same role where the guards tell the threads
      // apart (warps 4-7 load, warp 4 frees: both are "a subset").
      Apart apart = threadsApart(fn, guards, a, d);
      if (!apart.decided && !possiblyOtherThread(fn, a, d)) continue;
      model::AliasEvidence same = sameAllocation(a, d);
      const bool decided = apart.decided && same.same();
      if (!best || (decided && !(best->second.first.decided && best->second.second.same())))
        best = {a, {apart, same}};
      if (decided) break;
    }
    if (!best) continue;
    if (!reported.try_emplace(protocol::siteKey(fn, d), true).second) continue;
    const InstId a = best->first;
    auto diag = protocol::makeDiagnostic(
        fn, d, "tmem-dealloc-race",
        fmt::format("this tcgen05.dealloc frees tensor memory that other threads' {} may still access: no thread "
                    "synchronization orders their access before it",
                    proxy::describe(fn, a)),
        "synchronize the warps that access the tensor memory with the deallocating warp before the dealloc "
        "(tcgen05.fence::before_thread_sync; __syncthreads() or a named barrier bar.sync id, count over those warps; "
        "tcgen05.fence::after_thread_sync)");
    diag.fixRequest = noMachineFix("the barrier must name the warps that access the tensor memory, a design choice");
    protocol::addNote(diag, fn, a, "tcgen05 access of another thread, with no synchronization on the way to the dealloc");
    using report::LinkKind;
    diag.evidence.push_back(report::link(fn, LinkKind::Access, a, "tcgen05-operation"));
    diag.evidence.push_back(report::link(fn, LinkKind::HandOff, d, "dealloc", "the tensor memory is freed here"));
    diag.evidence.push_back(report::link(fn, LinkKind::SameBytes, -1, best->second.second.how,
                                         best->second.second.detail, best->second.second.same()));
    diag.evidence.push_back(report::link(fn, LinkKind::Partner, d, best->second.first.how,
                                         best->second.first.detail, best->second.first.decided));
    out.push_back(diag);
  }
}

}  // namespace fenceline::checks
