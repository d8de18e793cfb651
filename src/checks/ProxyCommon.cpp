// Shared machinery of proxy-war and proxy-raw (see ProxyCommon.h). The
// semantics are ../shared/ordering-rules.md, sections proxy-war and proxy-raw:
// a fence.proxy.async covering shared memory must lie on every path from a
// generic access to the async-proxy operation, executed either by every
// thread that made the access (before the hand-off) or by the thread that
// issues the async operation (after it acquired the hand-off).
#include "checks/ProxyCommon.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>

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

bool isShared(Space s) { return s == Space::SharedCta || s == Space::SharedCluster; }

bool never(InstId) { return false; }

std::optional<int64_t> constantOperand(const FunctionModel& fn, InstId inst, const ptx::Operand& op) {
  if (op.kind == ptx::Operand::Kind::Integer) return op.intValue;
  if (op.kind == ptx::Operand::Kind::Register && fn.values) {
    model::AbstractValue v = fn.values->valueOf(op.reg, inst);
    if (v.isConstant()) return v.constant;
  }
  return std::nullopt;
}

// The byte count operand of a non-tensor bulk copy (`[dst], [src], size, ...`).
std::optional<int64_t> bulkSize(const FunctionModel& fn, InstId inst) {
  const auto& in = fn.instructions[inst];
  int addresses = 0;
  for (const auto& op : in.operands) {
    if (op.kind == ptx::Operand::Kind::Address) {
      ++addresses;
      continue;
    }
    if (addresses >= 2) return constantOperand(fn, inst, op);
  }
  return std::nullopt;
}

bool announcesBytes(const FunctionModel& fn, InstId inst) {
  const auto& in = fn.instructions[inst];
  if (in.effect.kind == EffectKind::MbarrierExpectTx) return in.opcode() == "mbarrier" && in.hasModifier("expect_tx");
  if (in.effect.kind != EffectKind::MbarrierArrive) return false;
  for (const auto& m : in.syntax->modifiers)
    if (m.starts_with("expect_tx")) return true;
  return false;
}

bool sameTerms(const model::AbstractValue& a, const model::AbstractValue& b) {
  if (a.terms.size() != b.terms.size()) return false;
  for (size_t i = 0; i < a.terms.size(); ++i)
    if (a.terms[i].name != b.terms[i].name || a.terms[i].coefficient != b.terms[i].coefficient) return false;
  return true;
}

// The widest generic shared access (ld.v4.b32, ldmatrix per thread): 16 bytes.
constexpr int64_t kMaxAccessBytes = 16;

}  // namespace

bool isGenericSharedAccess(const FunctionModel& fn, InstId inst) {
  const auto& e = effectOf(fn, inst);
  if (e.kind != EffectKind::Load && e.kind != EffectKind::Store && e.kind != EffectKind::ReadModifyWrite) return false;
  if (e.proxy != Proxy::Generic || e.address < 0) return false;
  if (e.mbarrier >= 0) return false;  // st.async / red.async: completion through an mbarrier, remote
  if (isShared(e.space)) return true;
  if (e.space != Space::Generic || !fn.values) return false;
  return isShared(fn.values->addressSpace(inst, e.address));
}

bool isGenericSharedWrite(const FunctionModel& fn, InstId inst) {
  return effectOf(fn, inst).writes && isGenericSharedAccess(fn, inst);
}

bool isAsyncSharedWrite(const FunctionModel& fn, InstId inst) {
  const auto& e = effectOf(fn, inst);
  return e.kind == EffectKind::AsyncCopy && e.proxy == Proxy::Async && e.writes && e.destination >= 0 &&
         isShared(e.destinationSpace);
}

bool isAsyncSharedRead(const FunctionModel& fn, InstId inst) {
  const auto& e = effectOf(fn, inst);
  if (e.proxy != Proxy::Async) return false;
  if (e.kind == EffectKind::AsyncCopy) return e.source >= 0 && isShared(e.sourceSpace);
  return (e.kind == EffectKind::Wgmma || e.kind == EffectKind::Tcgen05) && e.reads;
}

bool readsThroughDescriptor(const FunctionModel& fn, InstId inst) {
  const auto k = effectOf(fn, inst).kind;
  return k == EffectKind::Wgmma || k == EffectKind::Tcgen05;
}

bool isSharedProxyFence(const FunctionModel& fn, InstId inst) {
  const auto& e = effectOf(fn, inst);
  if (e.kind != EffectKind::ProxyFence || e.proxy != Proxy::Async) return false;
  // fence.proxy.async::generic.acquire orders async-proxy accesses before
  // later generic ones: the other direction.
  if (fn.instructions[inst].hasModifier("acquire")) return false;
  return e.fenceSpace == Space::None || isShared(e.fenceSpace);
}

bool fenceCoversThreadsOf(const FunctionModel& fn, InstId fence, InstId access) {
  if (!fn.roles) return true;
  ThreadSet f = fn.roles->instructionSet(fence);
  if (f == ThreadSet::All || f == ThreadSet::Subset) return true;
  ThreadSet a = fn.roles->instructionSet(access);
  if (f == a) return true;
  // The access itself is made by one thread, which is also in the fence's set
  // when the fence is only one lane or one warp wide (thread 0 is lane 0 of warp 0).
  return (a == ThreadSet::OneThread || a == ThreadSet::OneBlockThread) &&
         (f == ThreadSet::OneLane || f == ThreadSet::OneWarp || f == ThreadSet::OneThread);
}

bool isAcquirePoint(const FunctionModel& fn, InstId inst) {
  auto k = effectOf(fn, inst).kind;
  return k == EffectKind::CtaBarrier || k == EffectKind::MbarrierWait;
}

bool isHandOffArrive(const FunctionModel& fn, InstId inst) {
  const auto& in = fn.instructions[inst];
  const auto& e = in.effect;
  if (e.kind != EffectKind::MbarrierArrive || e.proxy == Proxy::Async) return false;
  if (in.opcode() != "mbarrier") return false;  // cp.async.mbarrier.arrive: Ampere copy completion
  for (const auto& m : in.syntax->modifiers)
    if (m.starts_with("expect_tx")) return false;
  return true;
}

bool isMbarrierWait(const FunctionModel& fn, InstId inst) {
  return effectOf(fn, inst).kind == EffectKind::MbarrierWait;
}

bool sameBarrier(const FunctionModel& fn, InstId a, InstId b) {
  const auto& ea = effectOf(fn, a);
  const auto& eb = effectOf(fn, b);
  if (ea.address < 0 || eb.address < 0 || !fn.values) return true;
  return fn.values->mayAlias(a, ea.address, b, eb.address);
}

int64_t copyExtent(const FunctionModel& fn, InstId async) {
  const auto& in = fn.instructions[async];
  if (in.effect.kind != EffectKind::AsyncCopy) return -1;
  if (!in.hasModifier("tensor")) return bulkSize(fn, async).value_or(-1);
  const int mbarrier = in.effect.mbarrier;
  if (mbarrier < 0 || !fn.values) return -1;
  std::vector<InstId> announcements = model::findReachingBackward(
      fn, async,
      [&](InstId i) {
        return announcesBytes(fn, i) && fn.instructions[i].effect.address >= 0 &&
               fn.values->mayAlias(i, fn.instructions[i].effect.address, async, mbarrier);
      },
      never);
  int64_t bound = -1;
  for (InstId i : announcements) {  // every path's announcement must be known; take the largest
    const auto& ops = fn.instructions[i].operands;
    std::optional<int64_t> bytes = ops.empty() ? std::nullopt : constantOperand(fn, i, ops.back());
    if (!bytes || *bytes <= 0) return -1;
    bound = std::max(bound, *bytes);
  }
  return bound;
}

namespace {

// The shared object a wgmma / tcgen05 matrix descriptor points into: the
// descriptor is the 32-bit shared address shifted and masked, or-ed with
// layout bits, advanced by adds; follow the first register operand of those
// until a value with a shared-symbol base appears. "" when not found.
std::string descriptorObject(const FunctionModel& fn, model::ValueReg reg, InstId at) {
  static constexpr std::string_view kThrough[] = {"or", "and", "shr", "shl", "cvt", "mov", "add", "xor", "cvta"};
  for (int depth = 0; reg >= 0 && depth < 16; ++depth) {
    model::AbstractValue v = fn.values->valueOf(reg, at);
    if (v.known && v.baseKind == model::AbstractValue::BaseKind::SharedSymbol) return v.base;
    InstId def = fn.values->definition(reg, at);
    if (def < 0) return {};
    const auto& in = fn.instructions[def];
    if (std::find(std::begin(kThrough), std::end(kThrough), in.opcode()) == std::end(kThrough)) return {};
    model::ValueReg next = -1;
    for (size_t k = 1; k < in.operands.size() && next < 0; ++k)
      if (in.operands[k].kind == ptx::Operand::Kind::Register) next = in.operands[k].reg;
    reg = next;
    at = def;
  }
  return {};
}

// The shared objects the descriptors of a wgmma / tcgen05 point into, or
// empty when any of them is unknown.
std::vector<std::string> descriptorObjects(const FunctionModel& fn, InstId inst) {
  std::vector<std::string> objects;
  const auto& in = fn.instructions[inst];
  for (const auto& op : in.operands) {
    if (op.kind != ptx::Operand::Kind::Register || fn.registerTypes.size() <= static_cast<size_t>(op.reg)) continue;
    if (fn.registerTypes[op.reg] != ".b64" && fn.registerTypes[op.reg] != ".u64" && fn.registerTypes[op.reg] != ".s64")
      continue;  // descriptors are 64-bit; accumulators and predicates are not
    std::string object = descriptorObject(fn, op.reg, inst);
    if (object.empty()) return {};
    objects.push_back(std::move(object));
  }
  return objects;
}

}  // namespace

bool mayOverlap(const FunctionModel& fn, InstId access, InstId async, int operand, int64_t extent) {
  const auto& ea = effectOf(fn, access);
  if (ea.address < 0 || !fn.values) return true;
  if (readsThroughDescriptor(fn, async)) {
    // Disjoint only when every descriptor names a shared symbol other than the access's.
    std::vector<std::string> objects = descriptorObjects(fn, async);
    model::AbstractValue a = fn.values->operandValue(access, ea.address);
    if (objects.empty() || !a.known || a.baseKind != model::AbstractValue::BaseKind::SharedSymbol) return true;
    return std::find(objects.begin(), objects.end(), a.base) != objects.end();
  }
  if (operand < 0) return true;
  const bool same = fn.values->sameObject(access, ea.address, async, operand);
  if (!same) return fn.values->mayAlias(access, ea.address, async, operand);
  model::AbstractValue a = fn.values->operandValue(access, ea.address);
  model::AbstractValue c = fn.values->operandValue(async, operand);
  if (!a.known || !c.known) return true;
  int64_t size = fn.values->accessSize(access, ea.address);
  if (size <= 0) size = kMaxAccessBytes;
  if (sameTerms(a, c)) {
    const int64_t delta = a.constant - c.constant;  // access offset relative to the copy's start
    if (delta + size <= 0) return false;
    return extent < 0 || delta < extent;
  }
  // Different variable parts: compare the offset ranges when both are bounded.
  auto ra = a.offsetRange(), rc = c.offsetRange();
  if (!ra || !rc || extent < 0) return true;
  return ra->first < rc->second + extent && rc->first < ra->second + size;
}

std::vector<InstId> waitsBefore(const FunctionModel& fn, InstId async) {
  return model::findReachingBackward(
      fn, async, [&](InstId i) { return isMbarrierWait(fn, i); }, never);
}

bool ReachCache::reaches(InstId from, InstId to) {
  const model::BlockId fromBlock = fn_.blockOf[from], toBlock = fn_.blockOf[to];
  if (fromBlock < 0 || toBlock < 0) return false;
  if (fromBlock == toBlock && from < to) return true;
  auto [it, inserted] = blocks_.try_emplace(from);
  std::vector<char>& seen = it->second;
  if (inserted) {  // blocks entered from the top after `from`, its own block included around a loop
    seen.assign(fn_.blocks.size(), 0);
    std::vector<model::BlockId> queue;
    for (model::BlockId b : fn_.blocks[fromBlock].successors)
      if (b >= 0 && !seen[b]) {
        seen[b] = 1;
        queue.push_back(b);
      }
    for (size_t head = 0; head < queue.size(); ++head)
      for (model::BlockId n : fn_.blocks[queue[head]].successors)
        if (n >= 0 && !seen[n]) {
          seen[n] = 1;
          queue.push_back(n);
        }
  }
  return seen[toBlock] != 0;
}

HandOff analyzeHandOff(const FunctionModel& fn, ReachCache& reach, InstId access, InstId async,
                       const std::vector<InstId>& waits, bool reportAtAsync) {
  HandOff result;
  auto anyFence = [&](InstId i) { return isSharedProxyFence(fn, i); };
  auto anyProxyFence = [&](InstId i) {
    const auto& e = effectOf(fn, i);
    return e.kind == EffectKind::ProxyFence && e.proxy == Proxy::Async;
  };
  auto coveringFence = [&](InstId i) { return isSharedProxyFence(fn, i) && fenceCoversThreadsOf(fn, i, access); };
  auto matchesAWait = [&](InstId arrive) {
    return std::any_of(waits.begin(), waits.end(), [&](InstId w) { return sameBarrier(fn, arrive, w); });
  };

  if (reach.reaches(access, async)) {
    // A read that only ever precedes the async write (no cycle through both)
    // would read the buffer before it is filled: in a correct program it reads
    // something else that the alias analysis could not tell apart (a TMEM base
    // address or a scheduler word next to the tiles). Writes stay: initializing
    // a buffer generically before its first async fill is the hazard itself.
    if (!effectOf(fn, access).writes && !reach.reaches(async, access)) return result;
    // The access reaches the async operation on this thread's own paths
    // (through bar.sync, through an mbarrier round trip, or directly). A path
    // is safe once it passes a fence all accessing threads execute, or an
    // acquire point after which every path to the operation is fenced.
    std::map<InstId, bool> fencedAfter;
    auto stop = [&](InstId i) {
      if (coveringFence(i)) return true;
      if (!isAcquirePoint(fn, i)) return false;
      auto [it, inserted] = fencedAfter.try_emplace(i, false);
      if (inserted) it->second = model::everyPathPasses(fn, i, async, anyFence);
      return it->second;
    };
    if (model::everyPathPasses(fn, access, async, stop)) return result;
    result.hazard = true;
    result.site = async;
    result.kind = HandOff::Kind::SameThread;
    result.fence = model::findReachable(fn, access, anyProxyFence, [&](InstId i) { return i == async; });
    if (reportAtAsync) return result;
    InstId h = model::findReachable(
        fn, access,
        [&](InstId i) {
          if (effectOf(fn, i).kind == EffectKind::CtaBarrier) return true;
          return isHandOffArrive(fn, i) && matchesAWait(i);
        },
        [&](InstId i) { return i == async; });
    if (h >= 0) {
      result.site = h;
      result.kind = effectOf(fn, h).kind == EffectKind::CtaBarrier ? HandOff::Kind::Barrier : HandOff::Kind::Arrive;
    }
    return result;
  }

  // Different roles (a producer warp issues the copy): the hand-off is an
  // mbarrier arrive after the access on a barrier the issuer waits on.
  if (waits.empty()) return result;
  auto [cached, fresh] = reach.arrives.try_emplace({access, waits});
  if (fresh) {
    for (InstId arrive : model::findAllReachable(
             fn, access, [&](InstId i) { return isHandOffArrive(fn, i) && matchesAWait(i); }, never))
      cached->second.push_back({arrive, model::everyPathPasses(fn, access, arrive, coveringFence)});
  }
  for (const auto& [arrive, fencedByAccessor] : cached->second) {
    if (fencedByAccessor) continue;
    bool issuerFenced = true;
    for (InstId w : waits) {
      if (!sameBarrier(fn, arrive, w)) continue;
      auto [it, inserted] = reach.issuerFenced.try_emplace({w, async}, false);
      if (inserted) it->second = model::everyPathPasses(fn, w, async, anyFence);
      if (!it->second) issuerFenced = false;
    }
    if (issuerFenced) continue;
    result.hazard = true;
    result.site = reportAtAsync ? async : arrive;
    result.kind = reportAtAsync ? HandOff::Kind::SameThread : HandOff::Kind::Arrive;
    result.fence = model::findReachable(fn, access, anyProxyFence, [&, arrive = arrive](InstId i) { return i == arrive; });
    if (result.fence < 0) {  // the issuer's fence, if it has one, is before its wait
      auto before = model::findReachingBackward(fn, async, anyProxyFence, never);
      if (!before.empty()) {
        result.fence = before.back();
        result.fenceIsIssuers = true;
      }
    }
    return result;
  }
  return result;
}

std::string siteKey(const FunctionModel& fn, InstId inst) {
  std::string key;
  for (const auto& frame : fn.sourceChain(inst)) {
    key += frame.file;
    key += ':';
    key += std::to_string(frame.line);
    key += ';';
  }
  if (key.empty()) key = "ptx:" + std::to_string(fn.instructions[inst].syntax->pos.line);
  return key;
}

void FindingSet::add(const FunctionModel& fn, const HandOff& handOff, InstId access, InstId async) {
  std::string key = siteKey(fn, handOff.site);
  auto [it, inserted] = entries_.try_emplace(key);
  Entry& e = it->second;
  Finding& f = e.finding;
  if (inserted) {
    f.site = handOff.site;
    f.kind = handOff.kind;
    order_.push_back(key);
  }
  if (f.fence < 0 && handOff.fence >= 0) {
    f.fence = handOff.fence;
    f.fenceIsIssuers = handOff.fenceIsIssuers;
    f.fenceAccess = access;
  }
  std::string accessKey = siteKey(fn, access);
  if (f.accesses.size() < kMaxAccessNotes &&
      std::find(e.accessKeys.begin(), e.accessKeys.end(), accessKey) == e.accessKeys.end()) {
    f.accesses.push_back(access);
    e.accessKeys.push_back(std::move(accessKey));
  }
  std::string asyncKey = siteKey(fn, async);
  if (async != handOff.site && f.asyncs.size() < kMaxAsyncNotes &&
      std::find(e.asyncKeys.begin(), e.asyncKeys.end(), asyncKey) == e.asyncKeys.end()) {
    f.asyncs.push_back(async);
    e.asyncKeys.push_back(std::move(asyncKey));
  }
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
  std::string text = in.opcode();
  for (const auto& m : in.syntax->modifiers)
    if (std::find(std::begin(kShown), std::end(kShown), m) != std::end(kShown)) text += "." + m;
  return text;
}

std::string functionName(const FunctionModel& fn) {
  if (!fn.function) return {};
  const std::string& name = fn.function->name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                              std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

}  // namespace fenceline::checks::proxy
