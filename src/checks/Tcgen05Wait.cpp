// tcgen05-wait: tcgen05.ld and tcgen05.st are asynchronous. Before a thread
// tells others that tensor memory may be reused or consumed (an mbarrier
// arrive, bar.sync / bar.arrive, a cluster barrier arrive, tcgen05.dealloc)
// it must complete them: tcgen05.wait::ld for its loads, tcgen05.wait::st
// for its stores. And a hand-off of tcgen05 work from one thread to another
// through a relaxed thread synchronization (mbarrier.arrive.relaxed,
// mbarrier.try_wait.relaxed, barrier.cluster.arrive.relaxed) is ordered only
// with tcgen05.fence::before_thread_sync before it (in the thread whose
// tcgen05 work precedes it) and tcgen05.fence::after_thread_sync after it (in
// the thread whose tcgen05 work follows it); release/acquire synchronization
// and tcgen05.commit's arrive need no fence (see `releases` below).
//
// Three findings, each reported at the operation where the wait or fence is
// missing: a signal reached from a tcgen05.ld/st without the wait (for a
// load, a signal after which the tensor memory may be overwritten or
// freed); a relaxed synchronization reached from tcgen05 work without the
// before-fence, when another thread's tcgen05 work follows it; and tcgen05 work after a
// relaxed synchronization without the after-fence, when the synchronization
// follows another thread's tcgen05 work (a cluster barrier after it, or a
// wait on a barrier that tcgen05.commit or a tcgen05 thread's arrive completes).
#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "checks/ProxyCommon.h"
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
// fences otherwise supply. CUTLASS's and Triton's Blackwell kernels hand
// tcgen05 work over with release arrives, acquire waits, bar.sync and
// tcgen05.commit and emit no tcgen05.fence::*_thread_sync; the ISA's
// canonical patterns that show the fences synchronize with .relaxed
// operations (mbarrier.try_wait.relaxed.cluster; tcgen05.fence::after_thread_sync;
// tcgen05.ld), see NVIDIA/cutlass#2974. The fences are required around
// relaxed synchronization only.
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
      repeat = std::stoll(m.substr(1));
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

  // 2. Before-fence: tcgen05 work -> thread sync, another thread's tcgen05 work after it.
  auto workAfter = [&](InstId sync) -> std::vector<InstId> {
    if (kindOf(fn, sync) == EffectKind::MbarrierArrive) {  // through the waits on its barrier
      std::vector<InstId> found;
      for (InstId w : waits)
        if (proxy::sameBarrier(fn, sync, w))
          for (InstId y : model::findAllReachable(fn, w, [&](InstId i) { return isTcgen05Work(fn, i); }, never))
            found.push_back(y);
      return found;
    }
    return model::findAllReachable(fn, sync, [&](InstId i) { return isTcgen05Work(fn, i); }, never);
  };
  auto before = isKind(EffectKind::Tcgen05FenceBefore);
  for (InstId x : work) {
    for (InstId s : model::findAllReachable(fn, x, [&](InstId i) { return isThreadSyncSignal(fn, i); }, before)) {
      if (releases(fn, s)) continue;
      auto after = workAfter(s);
      if (std::any_of(after.begin(), after.end(), [&](InstId y) { return possiblyOtherThread(fn, x, y); }))
        emit({s, x, Report::MissingBefore});
    }
  }

  // 3. After-fence: a synchronization that follows another thread's tcgen05
  // work (bar.sync reached from it; a wait on a barrier that tcgen05.commit
  // or an arrive reached from tcgen05 work completes), then tcgen05 work.
  auto afterFence = isKind(EffectKind::Tcgen05FenceAfter);
  auto check = [&](InstId sync, auto&& fromOther) {
    for (InstId y : model::findAllReachable(fn, sync, [&](InstId i) { return isTcgen05Work(fn, i); }, afterFence))
      if (fromOther(y)) emit({y, sync, Report::MissingAfter});
  };
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0 || acquires(fn, i)) continue;
    if (kindOf(fn, i) == EffectKind::CtaBarrier) {
      std::vector<InstId> sources = model::findReachingBackward(fn, i, [&](InstId j) { return isTcgen05Work(fn, j); },
                                                                never);
      if (sources.empty()) continue;
      check(i, [&](InstId y) {
        return std::any_of(sources.begin(), sources.end(), [&](InstId x) { return possiblyOtherThread(fn, x, y); });
      });
    } else if (kindOf(fn, i) == EffectKind::MbarrierWait) {
      bool handsTcgen05 = false;
      for (InstId a = 0; a < static_cast<InstId>(fn.instructions.size()) && !handsTcgen05; ++a) {
        if (fn.instructions[a].block < 0 || !proxy::sameBarrier(fn, a, i)) continue;
        if (isTcgen05Commit(fn, a)) handsTcgen05 = true;
        else if (proxy::isHandOffArrive(fn, a))
          handsTcgen05 = !model::findReachingBackward(fn, a, [&](InstId j) { return isTcgen05Work(fn, j); }, never)
                              .empty();
      }
      // The tensor-memory accesses after the wait (allocation management
      // after it is a teardown question the check leaves alone).
      if (handsTcgen05) check(i, [&](InstId y) { return !isAllocationManagement(fn, y); });
    }
  }
}

}  // namespace fenceline::checks
