// Shared reporting of proxy-war and proxy-raw (see ProxyCommon.h); the
// analysis is model/HandOffs.cpp. The semantics are
// ../shared/ordering-rules.md, sections proxy-war and proxy-raw.
#include "checks/ProxyCommon.h"


#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "checks/ProtocolReport.h"
#include "model/CopyCompletion.h"
#include "model/Demangle.h"
#include "model/GuardedRanges.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::checks::proxy {

using model::EffectKind;
using model::Proxy;
using model::Space;
using model::ThreadSet;

namespace {

const model::MemoryEffect& effectOf(const FunctionModel& fn, InstId inst) { return fn.instructions[inst].effect; }


bool never(InstId) { return false; }

template <class T>
void addSorted(std::vector<T>& values, T value) {
  auto at = std::lower_bound(values.begin(), values.end(), value);
  if (at == values.end() || *at != value) values.insert(at, value);
}

// Where a cp.async's writes take effect (model/CopyCompletion.h), as the
// `from` of a GenericAccess.
bool isCompletionPoint(const FunctionModel& fn, InstId inst) {
  const auto k = effectOf(fn, inst).kind;
  return k == EffectKind::AsyncWait || k == EffectKind::MbarrierWait;
}

}  // namespace

bool madeByOtherThreads(const FunctionModel& fn, protocol::ThreadGuards& guards, InstId async, InstId access) {
  if (!fn.roles) return false;
  const ThreadSet issuers = fn.roles->instructionSet(async), makers = fn.roles->instructionSet(access);
  if (issuers == ThreadSet::All) return false;
  if (makers != ThreadSet::All && makers != ThreadSet::Subset && makers != ThreadSet::OneWarp) return false;
  if (!guards.apart(async, access)) return false;
  constexpr std::pair<int64_t, int64_t> kAnyThread{0, int64_t(1) << 20};
  const auto a = model::guardedRange(fn, async, "%tid.x", kAnyThread);
  const auto b = model::guardedRange(fn, access, "%tid.x", kAnyThread);
  if (a.second < b.first || b.second < a.first) return false;  // two roles
  // Every thread that makes the access also issues (each thread stores its
  // own row): the issuers' range, narrowed by its guards, holds the access's.
  return !(a.second < kAnyThread.second && a.first <= b.first && b.second <= a.second);
}

namespace {

// More threads make the access than issue the async operation (an election
// or one thread issues, a wider set accesses): program order orders the
// others' instances of the access with nothing.
bool moreMakersThanIssuers(const FunctionModel& fn, InstId access, InstId async) {
  if (!fn.roles) return false;
  const ThreadSet issuers = fn.roles->instructionSet(async), makers = fn.roles->instructionSet(access);
  const bool wide = makers == ThreadSet::All || makers == ThreadSet::Subset;
  switch (issuers) {
    case ThreadSet::OneThread:
    case ThreadSet::OneBlockThread:
      return makers != ThreadSet::OneThread && makers != ThreadSet::OneBlockThread;
    case ThreadSet::OneLane:
      return wide || makers == ThreadSet::OneWarp;
    case ThreadSet::OneWarp:
      return wide;
    default:  // every thread, or a set each maker may belong to: each may issue after its own access
      return false;
  }
}

}  // namespace

bool onlyTheIssuersInstanceIsOrdered(const FunctionModel& fn, InstId access, int address, int64_t size, InstId async,
                                     int operand, int64_t extent) {
  if (!moreMakersThanIssuers(fn, access, async)) return false;
  // The same bytes for every thread: the issuer's instance is every instance.
  const ptx::RegisterId base = fn.instructions[access].operands[address].valueRegister();
  if (base < 0 || !protocol::dependsOnThreadIndex(fn, base, access)) return false;
  // Every instance inside the bytes the operation surely writes (a fixed
  // start, a known size): the issuer's one too.
  if (fn.memory && extent > 0) {
    const model::MemoryLocation accessed = fn.memory->location(access, address, size);
    const model::MemoryLocation written = fn.memory->location(async, operand, extent);
    if (accessed.object.known() && accessed.object == written.object && accessed.bytes && written.bytes &&
        written.lastStart == written.bytes->begin && written.bytes->begin <= accessed.bytes->begin &&
        accessed.bytes->end <= written.bytes->begin + extent)
      return false;
  }
  return true;
}

const ReachCache& handOffsOf(const FunctionModel& fn, std::optional<ReachCache>& local) {
  if (fn.handOffs) return *fn.handOffs;
  if (!local) local.emplace(fn);
  return *local;
}

int FindingSet::siteOf(const FunctionModel& fn, InstId inst) {
  auto [it, inserted] = siteOfInst_.try_emplace(inst, 0);
  if (inserted)
    it->second = siteNumbers_.try_emplace(protocol::siteKey(fn, inst), static_cast<int>(siteNumbers_.size())).first->second;
  return it->second;
}

void FindingSet::add(const FunctionModel& fn, const HandOff& handOff, GenericAccess generic, InstId async,
                     int operand, int64_t extent, Overlap overlap) {
  const InstId access = generic.access;
  const int site = siteOf(fn, handOff.site);
  auto [it, inserted] = entries_.try_emplace(site);
  Entry& e = it->second;
  Finding& f = e.finding;
  if (inserted) {
    f.site = handOff.site;
    f.kind = handOff.kind;
    order_.push_back(site);
  }
  if (f.fence < 0 && handOff.fence >= 0) {
    f.fence = handOff.fence;
    f.fenceIsIssuers = handOff.fenceIsIssuers;
    f.fenceAccess = generic.from;
  }
  if (overlap != Overlap::Uncertain) f.certainOverlap = true;
  // The evidence of this pair, until some pair's is decided: an uncertain
  // overlap is undecided whatever else holds, so only the first such pair is
  // examined; a finding examines at most kMaxEvidencePairs pairs (an unrolled
  // pipeline pairs every stage's access with every copy).
  constexpr int kMaxEvidencePairs = 64;
  int& attempts = attempts_[site];
  if (!f.decided && (f.evidence.empty() || (overlap != Overlap::Uncertain && attempts < kMaxEvidencePairs))) {
    ++attempts;
    auto [waits, fresh] = waitsOf_.try_emplace(async);
    if (fresh && handOff.via >= 0 && effectOf(fn, handOff.via).kind != EffectKind::CtaBarrier) {
      // The issuer's mbarrier waits and named barrier syncs (either may be the arrive's partner).
      waits->second = waitsBefore(fn, async);
      for (InstId sync : model::findReachingBackward(
               fn, async, [&](InstId i) { return isNamedBarrierSync(fn, i); }, never))
        waits->second.push_back(sync);
    }
    const model::MemoryAnalysis::MatrixOperands* operands = nullptr;
    if (overlap != Overlap::Uncertain && readsThroughDescriptor(fn, async) && fn.memory) {
      auto [known, first] = operandsOf_.try_emplace(async);
      if (first) known->second = fn.memory->matrixOperands(async);
      operands = &known->second;
    }
    std::vector<report::EvidenceLink> links =
        pairEvidence(fn, handOff, access, async, operand, extent, overlap, waits->second, operands);
    f.decided = std::all_of(links.begin(), links.end(), [](const report::EvidenceLink& l) { return l.decided; });
    if (f.decided || f.evidence.empty()) f.evidence = std::move(links);
  }
  const int accessSite = siteOf(fn, access);
  addSorted(e.allAccessSites, accessSite);
  addSorted(e.froms, generic.from);
  addSorted(e.siteAsyncs, async);
  auto known = std::find(e.accessSites.begin(), e.accessSites.end(), accessSite);
  if (known != e.accessSites.end()) {
    if (overlap != Overlap::Uncertain) f.accessUncertain[known - e.accessSites.begin()] = false;
  } else if (std::count_if(f.completions.begin(), f.completions.end(),
                           [&](InstId c) { return (c >= 0) == generic.completesLater(); }) <
             static_cast<std::ptrdiff_t>(kMaxAccessNotes)) {
    // (The limit holds per kind: plain accesses, and cp.async copies, so that
    // neither crowds the other out of the notes.)
    f.accesses.push_back(access);
    f.completions.push_back(generic.completesLater() ? generic.from : -1);
    f.accessUncertain.push_back(overlap == Overlap::Uncertain);
    e.accessSites.push_back(accessSite);
    // A proxy fence between a cp.async and its completion is there but does
    // not count (the copy's writes take effect only at the completion).
    if (f.fence < 0 && generic.completesLater()) {
      f.fence = model::findReachable(
          fn, access,
          [&](InstId i) { return effectOf(fn, i).kind == EffectKind::ProxyFence && effectOf(fn, i).proxy == Proxy::Async; },
          [&](InstId i) { return i == generic.from; });
      if (f.fence >= 0) f.fenceAccess = generic.from;
    }
  }
  const int asyncSite = siteOf(fn, async);
  if (async != handOff.site && f.asyncs.size() < kMaxAsyncNotes &&
      std::find(e.asyncSites.begin(), e.asyncSites.end(), asyncSite) == e.asyncSites.end()) {
    f.asyncs.push_back(async);
    e.asyncSites.push_back(asyncSite);
  }
}

void FindingSet::merge(Entry& into, const Entry& from) {
  Finding& f = into.finding;
  const Finding& g = from.finding;
  f.groupCopies.push_back(g.site);
  if (!f.decided && g.decided) {
    f.evidence = g.evidence;
    f.decided = true;
  }
  f.certainOverlap = f.certainOverlap || g.certainOverlap;
  if (f.fence < 0 && g.fence >= 0) {
    f.fence = g.fence;
    f.fenceIsIssuers = g.fenceIsIssuers;
    f.fenceAccess = g.fenceAccess;
  }
  for (size_t k = 0; k < g.accesses.size(); ++k) {
    auto known = std::find(into.accessSites.begin(), into.accessSites.end(), from.accessSites[k]);
    if (known != into.accessSites.end()) {
      if (!g.accessUncertain[k]) f.accessUncertain[known - into.accessSites.begin()] = false;
      continue;
    }
    const bool completes = g.completions[k] >= 0;
    if (std::count_if(f.completions.begin(), f.completions.end(), [&](InstId c) { return (c >= 0) == completes; }) >=
        static_cast<std::ptrdiff_t>(kMaxAccessNotes))
      continue;
    f.accesses.push_back(g.accesses[k]);
    f.completions.push_back(g.completions[k]);
    f.accessUncertain.push_back(g.accessUncertain[k]);
    into.accessSites.push_back(from.accessSites[k]);
  }
}

bool FindingSet::covers(const FunctionModel& fn, int site, const std::vector<InstId>& froms,
                        const std::vector<int>& others) {
  const std::vector<InstId>& stops = entries_.at(site).siteAsyncs;
  auto isStop = [&](InstId i) { return std::binary_search(stops.begin(), stops.end(), i); };
  for (int other : others) {
    if (other == site) continue;
    for (InstId copy : entries_.at(other).siteAsyncs)
      for (InstId from : froms)
        // Paths a thread can take: two branches on one unchanged predicate go one way.
        if (!model::everyConsistentPathPasses(fn, from, copy, isStop, stops, 8 * fn.blocks.size() + 256))
          return false;
  }
  return true;
}

int FindingSet::coveringSite(const FunctionModel& fn, const std::vector<int>& group) {
  std::vector<InstId> froms;
  for (int site : group)
    for (InstId from : entries_.at(site).froms) addSorted(froms, from);
  for (int candidate : group)
    if (covers(fn, candidate, froms, group)) return candidate;
  return -1;
}

void FindingSet::groupProgramOrder(const FunctionModel& fn) {
  std::vector<int> sites;
  for (int site : order_)
    if (entries_.at(site).finding.kind == HandOff::Kind::SameThread) sites.push_back(site);
  if (sites.size() < 2) return;
  // Each path walk is linear in the function: where the pairs would take too many, only equal
  // access sets group (and each group's fix is a fence before each of its copies).
  constexpr size_t kMaxWalks = 1 << 14;
  size_t walks = 0;
  for (int site : sites) walks += entries_.at(site).froms.size() * entries_.at(site).siteAsyncs.size();
  const bool walk = walks * sites.size() <= kMaxWalks;
  // One fence serves two findings when it is the same fence: both are made by the same accesses
  // (the fence goes after them, whichever copy follows), or one copy lies on every path from
  // the other's accesses to its copy (a fence before it is on those paths too).
  std::vector<size_t> parent(sites.size());
  for (size_t k = 0; k < sites.size(); ++k) parent[k] = k;
  std::function<size_t(size_t)> root = [&](size_t k) { return parent[k] == k ? k : parent[k] = root(parent[k]); };
  for (size_t a = 0; a < sites.size(); ++a)
    for (size_t b = a + 1; b < sites.size(); ++b) {
      if (root(a) == root(b)) continue;
      const Entry& x = entries_.at(sites[a]);
      const Entry& y = entries_.at(sites[b]);
      if (x.allAccessSites == y.allAccessSites ||
          (walk && (covers(fn, sites[a], y.froms, {sites[b]}) || covers(fn, sites[b], x.froms, {sites[a]}))))
        parent[root(b)] = root(a);
    }
  std::map<size_t, std::vector<int>> groups;  // by root, each in report order
  for (size_t k = 0; k < sites.size(); ++k) groups[root(k)].push_back(sites[k]);
  std::vector<int> merged;
  for (const auto& [_, group] : groups) {
    if (group.size() < 2) continue;
    const int covering = walk ? coveringSite(fn, group) : -1;
    const int lead = covering >= 0 ? covering : group.front();
    Entry& into = entries_.at(lead);
    for (int site : group)
      if (site != lead) {
        merge(into, entries_.at(site));
        merged.push_back(site);
      }
    into.finding.oneFenceCovers = covering >= 0;
  }
  std::erase_if(order_, [&](int site) { return std::find(merged.begin(), merged.end(), site) != merged.end(); });
}

std::vector<report::EvidenceLink> pairEvidence(const FunctionModel& fn, const HandOff& handOff, InstId access,
                                               InstId async, int operand, int64_t extent, Overlap overlap,
                                               const std::vector<InstId>& waits,
                                               const model::MemoryAnalysis::MatrixOperands* operands) {
  using report::LinkKind;
  std::vector<report::EvidenceLink> links;
  const bool writes = effectOf(fn, access).writes;
  links.push_back(report::link(fn, LinkKind::Access, access, writes ? "generic-write" : "generic-read"));
  // The hand-off: program order, a bar.sync, or an arrive on a barrier the issuer waits on.
  const InstId via = handOff.via;
  if (via < 0) {
    links.push_back(report::link(fn, LinkKind::HandOff, -1, "program-order",
                                 "the same thread makes the access and then issues the async operation"));
  } else if (effectOf(fn, via).kind == EffectKind::CtaBarrier) {
    links.push_back(report::link(fn, LinkKind::HandOff, via, "bar.sync"));
  } else if (isNamedBarrierArrive(fn, via)) {
    // bar.arrive id and the issuer's bar.sync id must be one named barrier.
    const model::AliasEvidence named = model::handoff::partnerEvidence(fn, via, waits);
    links.push_back(named.decided ? report::link(fn, LinkKind::HandOff, via, "named-barrier")
                                  : report::undecidedLink(fn, LinkKind::HandOff, via, "named-barrier-id",
                                                          "the id of this bar.arrive and of the issuer's bar.sync are "
                                                          "values the analysis could not show equal"));
  } else {
    // The arrive and the issuer's wait must be one barrier.
    const model::AliasEvidence same = model::handoff::partnerEvidence(fn, via, waits);
    links.push_back(same.decided ? report::link(fn, LinkKind::HandOff, via, "mbarrier")
                                 : report::undecidedLink(fn, LinkKind::HandOff, via, "barrier-" + same.how,
                                                         "arrive and the issuer's wait: " + same.detail));
  }
  links.push_back(report::link(fn, LinkKind::AsyncOperation, async, describe(fn, async)));
  // Why the two touch the same bytes.
  const int address = effectOf(fn, access).address;
  if (readsThroughDescriptor(fn, async)) {
    if (overlap == Overlap::Uncertain || !fn.memory || address < 0) {
      links.push_back(report::undecidedLink(fn, LinkKind::SameBytes, -1, "undecoded-descriptor",
                                            "the access meets the operands only where their matrix descriptors "
                                            "are not decoded"));
      return links;
    }
    // The decoded operands at the fewest rows the instruction reads: the
    // access must decidedly meet one of them.
    int64_t size = fn.memory->accessSize(access, address);
    if (size <= 0) size = kMaxAccessBytes;
    const model::MemoryLocation accessed = fn.memory->location(access, address, size);
    model::AliasEvidence best;
    model::MemoryAnalysis::MatrixOperands computed;
    if (!operands) computed = fn.memory->matrixOperands(async);
    for (const model::MemoryLocation& operand : (operands ? *operands : computed).fewest) {
      model::AliasEvidence e = fn.memory->aliasEvidence(accessed, operand);
      if (e.result == model::AliasResult::No) continue;
      if (e.decided || best.how.empty()) best = e;
      if (e.decided) break;
    }
    if (best.decided)
      links.push_back(report::link(fn, LinkKind::SameBytes, -1, "decoded-descriptor",
                                   "the access meets the shared memory its decoded matrix descriptors read: " +
                                       best.detail));
    else
      links.push_back(report::undecidedLink(fn, LinkKind::SameBytes, -1, best.how.empty() ? "unknown-pointer" : best.how,
                                            best.how.empty() ? "the access's memory could not be related to the "
                                                               "decoded operands"
                                                             : best.detail));
    return links;
  }
  if (!fn.memory || address < 0 || operand < 0) {
    links.push_back(report::undecidedLink(fn, LinkKind::SameBytes, -1, "unknown-pointer",
                                          "the addresses could not be analysed"));
    return links;
  }
  int64_t size = fn.memory->accessSize(access, address);
  if (size <= 0) size = kMaxAccessBytes;
  model::AliasEvidence e = fn.memory->aliasEvidence(access, address, size, async, operand, extent);
  // Only where the offsets could not be bounded at all (`same-buffer`): with
  // bounded offsets that overlap (`same-object`), the ranges cover the
  // instances of the threads that may issue too (a lane-indexed read of the
  // stage an elected lane refills: any lane may be elected).
  if (e.decided && e.how == "same-buffer" && via < 0 && isAsyncSharedWrite(fn, async) &&
      onlyTheIssuersInstanceIsOrdered(fn, access, address, size, async, operand, extent)) {
    links.push_back(report::undecidedLink(
        fn, LinkKind::SameBytes, -1, "issuer-instance",
        "no barrier lies between the two: program order orders only the issuing thread's own instance of this "
        "thread-indexed access, and the bytes were related over every thread's instance (" + e.detail + ")"));
    return links;
  }
  links.push_back(report::link(fn, LinkKind::SameBytes, -1, e.how, e.detail, e.decided));
  return links;
}

namespace {

std::string_view threadsOf(ThreadSet set) {
  switch (set) {
    case ThreadSet::OneLane: return "one lane of each warp";
    case ThreadSet::OneThread: return "one thread of the block";
    case ThreadSet::OneWarp: return "one warp of the block";
    case ThreadSet::OneBlockThread: return "one thread of the grid";
    default: return "some threads";
  }
}

}  // namespace

report::Note completionNote(const FunctionModel& fn, const Finding& finding, size_t k) {
  const InstId point = finding.completions[k];
  if (point < 0) return {};
  const std::string how = effectOf(fn, point).kind == EffectKind::MbarrierWait
                              ? "the mbarrier phase its cp.async.mbarrier.arrive signals completes at this wait"
                              : std::string("it completes at this ") +
                                    (fn.instructions[point].hasModifier("wait_all") ? "cp.async.wait_all"
                                                                                     : "cp.async.wait_group");
  return {fmt::format("the {} writes shared memory through the generic proxy; {}, with no fence.proxy.async after "
                      "it on the way",
                      describe(fn, finding.accesses[k]), how),
          report::locationOf(fn, point)};
}

InstId fenceAfter(const Finding& finding, size_t k) {
  return finding.completions[k] >= 0 ? finding.completions[k] : finding.accesses[k];
}

report::Note fenceNote(const FunctionModel& fn, const Finding& finding) {
  const InstId fence = finding.fence;
  const auto& e = effectOf(fn, fence);
  std::string why;
  if (e.fenceSpace == Space::Global)
    why = "this fence.proxy.async.global orders global memory only, not shared memory";
  else if (!isSharedProxyFence(fn, fence))
    why = "this proxy fence does not order generic accesses before async-proxy ones";
  else if (finding.fenceIsIssuers)
    why = "this fence comes before the issuing thread acquires the hand-off (its wait or barrier), so it does "
          "not order the accesses released to it";
  else if (!fenceCoversThreadsOf(fn, fence, finding.fenceAccess))
    why = "this fence is executed only by " + std::string(threadsOf(fn.roles->instructionSet(fence))) +
          "; a fence orders its own thread's accesses, not the other threads'";
  else if (isCompletionPoint(fn, finding.fenceAccess) && fn.dominatesInst(fence, finding.fenceAccess))
    why = "this fence comes before the cp.async completes; its writes take effect at the wait, so the fence must "
          "come after it";
  else if (fn.dominatesInst(fence, finding.fenceAccess))
    why = "this fence comes before the access; it must come after the thread's last access and before the "
          "hand-off";
  else
    why = "this fence is not on every path from the access to the hand-off";
  return {why, report::locationOf(fn, fence)};
}

std::string describe(const FunctionModel& fn, InstId inst) {
  static constexpr std::string_view kShown[] = {"reduce", "async", "bulk", "tensor", "mma_async", "mma", "cp",
                                                "shared", "shared::cta", "shared::cluster", "global"};
  const auto& in = fn.instructions[inst];
  std::string text(in.opcode());
  for (const auto& m : in.syntax->modifiers)
    if (std::find(std::begin(kShown), std::end(kShown), m) != std::end(kShown)) (text += ".") += m;
  return text;
}

std::string functionName(const FunctionModel& fn) {
  return fn.function ? model::demangle(fn.function->name) : std::string();
}

}  // namespace fenceline::checks::proxy
