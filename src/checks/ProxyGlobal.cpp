// proxy-global: the proxy rule in global memory. Generic writes to global
// memory that the async proxy reads later (a TMA load or bulk copy from
// global, a TMA reduce into it) after a flag, grid or cross-GPU hand-off need
// a `fence.proxy.async.global` (or unqualified `fence.proxy.async`): in the
// writer, between its writes and its release, or in the issuer, between its
// acquire and the copy. And the reverse: async-proxy writes to global memory
// (bulk/TMA stores, reductions) are released to other threads only after the
// issuer's `cp.async.bulk.wait_group N` (not `.read`) completed them.
//
// Both sides of an in-kernel hand-off are in one function (block 0 writes
// and signals, block 1 waits and copies), usually on different branches. A
// copy is related to writes through a wait before it (a spin-loop poll, an
// acquire load or RMW at .gpu or wider) that reaches it in the same loop
// iteration without an issuer fence, a signal on the same flag object (a
// release store or RMW at .gpu or wider, a relaxed flag a spin loop polls),
// and writes that reach the signal without a fence by every writer. Within
// one CTA (bar.sync only) nothing is reported: that is not the hand-off this
// check is about.
#include <algorithm>
#include <map>
#include <unordered_map>
#include <optional>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "checks/ProxyCommon.h"
#include "model/BulkGroups.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::checks {

namespace {

using model::EffectKind;
using model::FunctionModel;
using model::InstId;
using model::Scope;
using model::Space;


bool atLeastGpu(const FunctionModel& fn, InstId i) {
  Scope s = model::protocolOf(fn).scopeOf(i);
  return s == Scope::Gpu || s == Scope::Sys;
}

// A weak generic store of data to global memory (not a flag: flags are
// relaxed/volatile/release stores or atomics).
bool isGenericGlobalWrite(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  if (e.kind != EffectKind::Store || e.proxy != model::Proxy::Generic || e.mbarrier >= 0 || e.address < 0) return false;
  if (e.semantics != model::Semantics::Weak && e.semantics != model::Semantics::None) return false;
  if (e.space == Space::Global) return true;
  if (e.space != Space::Generic || !fn.memory) return false;
  Space narrowed = fn.memory->space(i, e.address);
  return narrowed == Space::Global || narrowed == Space::Generic || narrowed == Space::None;
}

// The operand through which an async copy reads global memory, or -1: the
// source of a TMA load / bulk copy from global, the destination of a reduction.
int asyncGlobalReadOperand(const FunctionModel& fn, InstId i) {
  const auto& in = fn.instructions[i];
  const auto& e = in.effect;
  if (e.kind != EffectKind::AsyncCopy || e.proxy != model::Proxy::Async) return -1;
  if (in.hasModifier("reduce")) return model::isGlobalSpace(e.destinationSpace) ? e.destination : -1;
  if (!e.writes) return -1;  // prefetch: nothing lands anywhere
  return model::isGlobalSpace(e.sourceSpace) ? e.source : -1;
}

bool isAcquirePoint(const model::ProtocolModel& ctx, InstId i);

// An async copy that writes global memory through an address (a bulk store
// or reduction, not a tensor-map copy: its memory cannot be related to the
// reads that follow a wait).
bool isAsyncGlobalWrite(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return e.kind == EffectKind::AsyncCopy && e.proxy == model::Proxy::Async && e.writes &&
         e.destinationSpace == Space::Global && e.destination >= 0;
}

// A generic read of global memory after a wait (any acquire point of the
// function, `acquires`) that may read what the async copy wrote: the
// consumer of the release.
bool readAfterAWait(const FunctionModel& fn, const std::vector<InstId>& acquires, InstId copy) {
  const int destination = fn.instructions[copy].effect.destination;
  auto reads = [&](InstId i) {
    const auto& e = fn.instructions[i].effect;
    return e.kind == EffectKind::Load && e.address >= 0 && model::isDataRead(fn, i) &&
           fn.memory->alias(i, e.address, copy, destination) != model::AliasResult::No;
  };
  auto never = [](InstId) { return false; };
  for (InstId i : acquires)
    if (model::findReachable(fn, i, reads, never) >= 0) return true;
  return false;
}

// fence.proxy.async / .global in the generic-to-async direction.
bool isGlobalProxyFence(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  return e.kind == EffectKind::ProxyFence && e.proxy == model::Proxy::Async &&
         e.semantics != model::Semantics::Acquire && (e.fenceSpace == Space::None || e.fenceSpace == Space::Global);
}

// A signal: a release store or RMW at .gpu or wider, or a relaxed flag
// store / atomic that a spin loop of this function polls.
bool isReleasePoint(const model::ProtocolModel& ctx, InstId i) {
  const FunctionModel& fn = ctx.function();
  const auto& e = fn.instructions[i].effect;
  if (e.address < 0) return false;
  if ((e.kind == EffectKind::Store || e.kind == EffectKind::ReadModifyWrite) && model::hasReleaseSemantics(e))
    return atLeastGpu(fn, i);
  return std::binary_search(ctx.signals().begin(), ctx.signals().end(), i);
}

// A wait: an acquire load or RMW at .gpu or wider, or the poll of a spin loop.
bool isAcquirePoint(const model::ProtocolModel& ctx, InstId i) {
  const FunctionModel& fn = ctx.function();
  const auto& e = fn.instructions[i].effect;
  if (e.address < 0) return false;
  if ((e.kind == EffectKind::Load || e.kind == EffectKind::ReadModifyWrite) && model::hasAcquireSemantics(e))
    return atLeastGpu(fn, i);
  return ctx.isPoll(i);
}

// The signal may be the one the wait observes: same flag object.
bool sameFlag(const FunctionModel& fn, InstId release, InstId acquire) {
  return fn.memory->alias(release, fn.instructions[release].effect.address, acquire,
                          fn.instructions[acquire].effect.address) != model::AliasResult::No;
}

// The loop headers a walk from `from` must not cross to stay in its iteration.
std::vector<model::BlockId> enclosingHeaders(const FunctionModel& fn, InstId from) {
  std::vector<model::BlockId> headers;
  for (int32_t l = fn.loopOf[fn.instructions[from].block]; l >= 0; l = fn.loops[l].parent)
    headers.push_back(fn.loops[l].header);
  return headers;
}

// `copy` is reached from the acquire point `acquire` in the same iteration of
// every loop around the acquire, on a path without an issuer fence.
bool reachesUnfenced(const FunctionModel& fn, InstId acquire, InstId copy) {
  std::vector<model::BlockId> headers = enclosingHeaders(fn, acquire);
  auto stop = [&](InstId i) {
    if (isGlobalProxyFence(fn, i)) return true;
    const auto& b = fn.blocks[fn.instructions[i].block];
    return i == b.first && std::find(headers.begin(), headers.end(), fn.instructions[i].block) != headers.end();
  };
  return model::findReachable(fn, acquire, [&](InstId i) { return i == copy; }, stop) >= 0;
}

struct Finding {
  InstId copy = -1, acquire = -1, release = -1, write = -1;
};

// The signals and waits of a function (reachable code), found once: every
// copy's hand-off search starts from them.
struct HandOffPoints {
  std::vector<InstId> releases, acquires;  // ascending
  std::vector<char> isAcquire;             // per instruction
  // The releases and acquires grouped by flag word: the candidates of one
  // flag are asked for, not every pair (issue 33).
  model::ProtocolModel::WordIndex releaseIndex, acquireIndex;
};

HandOffPoints handOffPoints(const model::ProtocolModel& ctx) {
  const FunctionModel& fn = ctx.function();
  HandOffPoints points;
  points.isAcquire.assign(fn.instructions.size(), 0);
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (isReleasePoint(ctx, i)) points.releases.push_back(i);
    if (isAcquirePoint(ctx, i)) {
      points.acquires.push_back(i);
      points.isAcquire[i] = 1;
    }
  }
  points.releaseIndex = ctx.wordIndex(points.releases);
  points.acquireIndex = ctx.wordIndex(points.acquires);
  return points;
}

// Writes the async read at `copy` may see unfenced, through one hand-off.
std::optional<Finding> unfencedHandOff(const FunctionModel& fn, const HandOffPoints& points, InstId copy,
                                       int operand) {
  // Without a signal and a wait there is no hand-off to search for.
  if (points.releases.empty() || points.acquires.empty()) return std::nullopt;
  const model::ProtocolModel& ctx = model::protocolOf(fn);
  auto acquires = model::findReachingBackward(
      fn, copy, [&](InstId i) { return points.isAcquire[i] != 0; }, [&](InstId i) { return isGlobalProxyFence(fn, i); });
  for (InstId acquire : acquires) {
    if (!reachesUnfenced(fn, acquire, copy)) continue;
    for (InstId release : ctx.candidates(points.releaseIndex, acquire)) {
      if (!sameFlag(fn, release, acquire)) continue;
      auto broadFence = [&](InstId i) {
        if (!isGlobalProxyFence(fn, i) || !fn.roles) return isGlobalProxyFence(fn, i);
        auto set = fn.roles->instructionSet(i);
        return set == model::ThreadSet::All || set == model::ThreadSet::Subset;
      };
      auto writes = model::findReachingBackward(
          fn, release, [&](InstId i) { return isGenericGlobalWrite(fn, i); }, broadFence);
      for (InstId write : writes) {
        if (fn.memory->alias(write, fn.instructions[write].effect.address, copy, operand) == model::AliasResult::No)
          continue;
        auto covering = [&](InstId i) { return isGlobalProxyFence(fn, i) && proxy::fenceCoversThreadsOf(fn, i, write); };
        if (model::everyPathPasses(fn, write, release, covering)) continue;
        return Finding{copy, acquire, release, write};
      }
    }
  }
  return std::nullopt;
}

report::Diagnostic renderRead(const FunctionModel& fn, const Finding& f) {
  const std::string copy = proxy::describe(fn, f.copy);
  auto d = protocol::makeDiagnostic(
      fn, f.copy, "proxy-global",
      fmt::format("the async proxy ({}) reads global memory that generic stores wrote before a hand-off, with no "
                  "fence.proxy.async.global between them; it may read the old data",
                  copy),
      fmt::format("insert fence.proxy.async.global in the writer, after its writes and before its release (executed "
                  "by every writing thread), or in the thread that issues the {} after its acquire and before "
                  "issuing it",
                  copy));
  // The fix: the thread that crosses from the generic to the async proxy (the copy's issuer) fences
  // after its acquire and right before the copy.
  d.fixRequest = insertBefore(fn, f.copy, report::FenceToInsert::ProxyAsyncGlobal);
  d.fixRequest.beforeHelperCall = true;
  d.fixRequest.after.push_back(report::locationOf(fn, f.acquire));
  protocol::addNote(d, fn, f.write, "generic write of global memory that the copy may read");
  protocol::addNote(d, fn, f.release, "the writer releases here without a proxy fence before it");
  protocol::addNote(d, fn, f.acquire, "the issuer acquires here; no proxy fence follows before the copy");
  using report::LinkKind;
  const model::ProtocolModel& ctx = model::protocolOf(fn);
  d.evidence.push_back(report::link(fn, LinkKind::Access, f.write, "generic-write"));
  d.evidence.push_back(report::link(fn, LinkKind::Signal, f.release, "release"));
  model::AliasEvidence flag = ctx.aliasEvidence(f.release, f.acquire);
  d.evidence.push_back(report::link(fn, LinkKind::Poll, f.acquire, flag.same() ? "same-flag" : "flag-" + flag.how,
                                    flag.detail, flag.same()));
  d.evidence.push_back(report::link(fn, LinkKind::AsyncOperation, f.copy, copy));
  const int operand = asyncGlobalReadOperand(fn, f.copy);
  model::AliasEvidence same = fn.memory->aliasEvidence(f.write, fn.instructions[f.write].effect.address, 0, f.copy,
                                                       operand, fn.memory->copyExtent(f.copy, operand));
  if (!same.decided) {  // pointers read from one peer table (the partner model's rule)
    model::AliasEvidence peer = ctx.aliasEvidence(f.write, fn.instructions[f.write].effect.address, f.copy, operand);
    if (peer.decided) same = peer;
  }
  if (!same.decided && fn.instructions[f.copy].opcode() == "cp" && fn.instructions[f.copy].hasModifier("tensor")) {
    same.how = "tensor-map";
    same.detail = "the copy reads through a tensor map whose global address the PTX does not show";
  }
  d.evidence.push_back(report::link(fn, LinkKind::SameBytes, -1, same.how, same.detail, same.decided));
  return d;
}

report::Diagnostic renderWrite(const FunctionModel& fn, InstId copy, InstId release, bool open,
                               const HandOffPoints& points) {
  const std::string what = proxy::describe(fn, copy);
  auto d = protocol::makeDiagnostic(
      fn, release, "proxy-global",
      fmt::format("this release publishes global memory written by the async proxy ({}) before the copy has "
                  "completed; a thread that acquires it may read the old data",
                  what),
      "before the release, the issuing thread commits the copy and waits for it with cp.async.bulk.wait_group N "
      "(not .read: that only covers the source; CUTLASS tma_store_wait<0>() is .read)");
  protocol::addNote(d, fn, copy, "async-proxy write of global memory, still in flight at the release");
  // The fix: the issuer completes its bulk groups (commit first when the copy's group is still
  // open) right before the release.
  d.fixRequest = insertBefore(fn, release, report::FenceToInsert::BulkWait);
  d.fixRequest.count = 0;
  d.fixRequest.commitFirst = open;
  d.fixRequest.beforeHelperCall = true;
  d.fixRequest.after.push_back(report::locationOf(fn, copy));
  // The reader: a read after a wait on this release's flag that may read what the copy wrote.
  using report::LinkKind;
  const model::ProtocolModel& ctx = model::protocolOf(fn);
  d.evidence.push_back(report::link(fn, LinkKind::AsyncOperation, copy, what));
  d.evidence.push_back(report::link(fn, LinkKind::Signal, release, "release"));
  const int destination = fn.instructions[copy].effect.destination;
  report::EvidenceLink readLink = report::undecidedLink(fn, LinkKind::GuardedRead, -1, "no-reader",
                                                        "no read after a wait on this flag reads what the copy wrote");
  // Each read's answers are asked once whatever the number of acquires (a
  // function with many flags asked them once per acquire per read), and at
  // most kMaxAcquires acquires of this very flag are examined.
  constexpr int kMaxAcquires = 64;
  std::unordered_map<InstId, bool> mayRead;
  std::unordered_map<InstId, model::AliasEvidence> sameCache;
  const model::MemoryLocation copied = fn.memory->location(copy, destination);
  int examined = 0;
  for (InstId acquire : ctx.candidates(points.acquireIndex, release)) {
    if (!ctx.aliasEvidence(release, acquire).same()) continue;  // another flag: not a wait on this release
    if (++examined > kMaxAcquires) break;
    auto reads = [&](InstId i) {
      const auto& e = fn.instructions[i].effect;
      if (e.kind != EffectKind::Load || e.address < 0) return false;
      auto [it, fresh] = mayRead.try_emplace(i, false);
      if (fresh)
        it->second = model::isDataRead(fn, i) && fn.memory->alias(i, e.address, copy, destination) != model::AliasResult::No;
      return it->second;
    };
    auto sameAs = [&](InstId read) -> const model::AliasEvidence& {
      auto [it, fresh] = sameCache.try_emplace(read);
      if (fresh) it->second = fn.memory->aliasEvidence(fn.memory->location(read, fn.instructions[read].effect.address), copied);
      return it->second;
    };
    // The nearest read, or a later one whose bytes are decidedly the copy's.
    InstId read = model::findReachable(
        fn, acquire, [&](InstId i) { return reads(i) && sameAs(i).decided; }, [](InstId) { return false; });
    if (read < 0) read = model::findReachable(fn, acquire, reads, [](InstId) { return false; });
    if (read < 0) continue;
    model::AliasEvidence same = sameAs(read);
    readLink = report::link(fn, LinkKind::GuardedRead, read, same.how, same.detail, same.decided);
    if (same.decided) {
      d.evidence.push_back(report::link(fn, LinkKind::Poll, acquire, "same-flag"));
      break;
    }
  }
  d.evidence.push_back(std::move(readLink));
  return d;
}

}  // namespace

void checkProxyGlobal(const model::FunctionModel& fn, Findings& out) {
  if (!fn.memory) return;
  std::vector<InstId> reads, writes;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (asyncGlobalReadOperand(fn, i) >= 0) reads.push_back(i);
    if (isAsyncGlobalWrite(fn, i)) writes.push_back(i);
  }
  if (reads.empty() && writes.empty()) return;
  const model::ProtocolModel& ctx = model::protocolOf(fn);
  const HandOffPoints points = handOffPoints(ctx);
  std::map<std::string, bool> reported;
  for (InstId copy : reads) {
    auto f = unfencedHandOff(fn, points, copy, asyncGlobalReadOperand(fn, copy));
    if (f && reported.try_emplace(protocol::siteKey(fn, copy), true).second) out.push_back(renderRead(fn, *f));
  }
  for (InstId copy : writes) {
    if (!readAfterAWait(fn, points.acquires, copy)) continue;
    InstId release = -1;
    bool open = false;
    model::walkWhilePending(fn, copy, model::BulkWait::Complete, [&](InstId i, const model::Pending& p) {
      if (release < 0 && isReleasePoint(ctx, i)) release = i, open = p.open;
      return release < 0;
    });
    if (release >= 0 && reported.try_emplace(protocol::siteKey(fn, release) + "#w", true).second)
      out.push_back(renderWrite(fn, copy, release, open, points));
  }
}

}  // namespace fenceline::checks
