// shared-race: a weak store to shared memory and another thread's weak load of
// the same bytes with nothing on the way between them that could make the two
// threads meet (no bar.sync / bar.warp.sync / mbarrier / strong access / call):
// the __syncwarp() or __syncthreads() is missing (session 28, branch recall28;
// HeCBench #221: lane 0 stores a per-warp slot that the other lanes read on
// the next line; nvFuser #489: thread 0 overwrites a reduction's shared
// partial while the other warps still read it).
//
// The PTX memory model orders two threads' accesses only through
// synchronization (MCM "Causality order"; lanes of one warp are separate
// threads, and only bar.warp.sync orders memory among them; a shfl.sync or a
// vote exchanges registers only). Two weak accesses of the same bytes, one a
// write, by different threads, unordered, are a data race ("Data race").
//
// Reported (at the read for write-then-read, at the write for
// read-then-write) when every link is decided:
//  - the two accesses are weak (no .volatile/.relaxed/.acquire/.release) ld/st
//    of this CTA's shared memory, and some CFG path from the first reaches
//    the second passing no instruction that may order threads
//    (model::handoff::mayOrderThreads);
//  - the bytes are the same for the two threads: both addresses are computed
//    from constants, shared symbols, kernel parameters and block-uniform
//    special registers (%ctaid, %ntid, ...) alone ("block-uniform"), or also
//    from the warp index %tid.x >> k, k >= 5 ("warp-uniform"), each register
//    with one reaching definition (no loop-carried index), and the memory
//    analysis decides the same bytes;
//  - different threads: one access sits under a thread-index guard and the
//    other under none (ThreadGuards::apart: the threads that skip the guarded
//    access make the other one); with a warp-uniform address the guarded
//    access is made by at most one lane of each warp (`lane == 0`, elect,
//    `tid == 0`), so the other lanes of its warp make the other access.
// Accesses made by every thread at one uniform address (all write, all read:
// often one value written by all) and accesses indexed by the thread index
// (each thread its own element, or a neighbour's) are not asked.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>
#include <string>
#include <vector>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "model/HandOffs.h"
#include "model/BlockReachability.h"
#include "model/BranchEdges.h"
#include "model/GuardedRanges.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/PathsBetween.h"
#include "model/SpinLoops.h"
#include "model/ThreadDecidedBranches.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::checks {

namespace {

using model::EffectKind;
using model::FunctionModel;
using model::InstId;
using model::Semantics;
using model::ThreadSet;

bool isWeak(const model::MemoryEffect& e) { return e.semantics == Semantics::Weak || e.semantics == Semantics::None; }

bool isLocalShared(const FunctionModel& fn, InstId i, EffectKind kind) {
  const auto& e = fn.instructions[i].effect;
  return e.kind == kind && e.address >= 0 && isWeak(e) && model::handoff::isGenericSharedAccess(fn, i) &&
         !fn.memory->mappedToAnotherCta(i, e.address);
}

enum class Uniformity { None, Block, Warp };

// How the address register's value varies between the threads of a block:
// the same for all (Block), the same for the lanes of a warp (Warp), or not
// known to be either (None).
class AddressUniformity {
 public:
  explicit AddressUniformity(const FunctionModel& fn) : fn_(fn) {}

  Uniformity of(InstId inst) {
    const auto& in = fn_.instructions[inst];
    const auto& op = in.operands[in.effect.address];
    if (op.kind == ptx::Operand::Kind::Register || op.kind == ptx::Operand::Kind::Address) {
      const ptx::RegisterId base = op.valueRegister();
      if (base < 0) return op.kind == ptx::Operand::Kind::Address ? Uniformity::Block : Uniformity::None;
      return ofRegister(base, inst, 0);
    }
    return Uniformity::None;
  }

 private:
  static Uniformity combine(Uniformity a, Uniformity b) {
    if (a == Uniformity::None || b == Uniformity::None) return Uniformity::None;
    return a == Uniformity::Warp || b == Uniformity::Warp ? Uniformity::Warp : Uniformity::Block;
  }

  static bool blockUniformSpecial(std::string_view name) {
    return name.starts_with("%ctaid") || name.starts_with("%nctaid") || name.starts_with("%ntid") ||
           name.starts_with("%cluster") || name.starts_with("%nclusterid") || name.starts_with("%clusterid") ||
           name == "%gridid" || name.starts_with("%dynamic_smem_size") || name.starts_with("%total_smem_size");
  }

  // The register holds %tid.x itself (through moves and integer conversions).
  bool isThreadIndexX(ptx::RegisterId reg, InstId at, int depth) {
    if (depth > 8) return false;
    const auto defs = fn_.values->reachingDefinitions(reg, at);
    if (defs.size() != 1) return false;
    const auto& def = fn_.instructions[defs[0]];
    const std::string_view op = def.syntax->opcode;
    if (op != "mov" && op != "cvt") return false;
    if (def.operands.size() < 2) return false;
    const auto& src = def.operands[1];
    if (src.kind == ptx::Operand::Kind::Special) return src.text == "%tid.x";
    if (src.kind == ptx::Operand::Kind::Register && src.reg >= 0) return isThreadIndexX(src.reg, defs[0], depth + 1);
    return false;
  }

  Uniformity ofRegister(ptx::RegisterId reg, InstId at, int depth) {
    if (depth > 24 || ++steps_ > 4096) return Uniformity::None;
    const auto defs = fn_.values->reachingDefinitions(reg, at);
    if (defs.size() != 1) return Uniformity::None;  // a loop-carried or path-dependent value
    const InstId d = defs[0];
    if (auto it = memo_.find(d); it != memo_.end()) return it->second;
    const auto& def = fn_.instructions[d];
    Uniformity result = Uniformity::None;
    if (def.effect.kind == EffectKind::Load) {
      // A kernel parameter is one value for every thread.
      result = def.effect.space == model::Space::Param ? Uniformity::Block : Uniformity::None;
    } else if (auto byThread = evaluated(d)) {
      result = *byThread;
    } else if (def.effect.kind == EffectKind::None && def.syntax->opcode != "shfl" && def.syntax->opcode != "vote" &&
               def.syntax->opcode != "elect" && def.syntax->opcode != "activemask" && def.syntax->opcode != "ld" &&
               def.syntax->opcode != "redux") {
      const std::string_view opcode = def.syntax->opcode;
      // The warp index: %tid.x >> k (k >= 5), %tid.x / (32 m), %tid.x & -32 m.
      if ((opcode == "shr" || opcode == "div" || opcode == "and") && def.operands.size() == 3 &&
          def.operands[1].kind == ptx::Operand::Kind::Register && def.operands[1].reg >= 0 &&
          def.operands[2].kind == ptx::Operand::Kind::Integer && isThreadIndexX(def.operands[1].reg, d, 0)) {
        const int64_t k = def.operands[2].intValue;
        const bool warpIndex = (opcode == "shr" && k >= 5 && k < 32) || (opcode == "div" && k > 0 && k % 32 == 0) ||
                               (opcode == "and" && (k & 31) == 0 && k != 0);
        result = warpIndex ? Uniformity::Warp : Uniformity::None;
      } else {
        result = Uniformity::Block;
        for (size_t o = 1; o < def.operands.size() && result != Uniformity::None; ++o) {
          const auto& op = def.operands[o];
          switch (op.kind) {
            case ptx::Operand::Kind::Register:
              result = op.reg < 0 ? Uniformity::None : combine(result, ofRegister(op.reg, d, depth + 1));
              break;
            case ptx::Operand::Kind::Special:
              if (!blockUniformSpecial(op.text)) result = Uniformity::None;
              break;
            case ptx::Operand::Kind::Integer:
            case ptx::Operand::Kind::Symbol:
              break;
            default:
              result = Uniformity::None;
          }
        }
      }
    }
    memo_.emplace(d, result);
    return result;
  }

  // A value computed from %tid.x and constants alone (`(tid >> 3) & ~3`, a
  // warp's slot): evaluated for every thread index the guards leave
  // (model/ThreadDecidedBranches.h); the same for all (Block), for the 32
  // lanes of each warp (Warp), or neither. %tid.y / %tid.z must not change it.
  std::optional<Uniformity> evaluated(InstId d) {
    if (fn_.instructions[d].effect.kind != EffectKind::None) return std::nullopt;
    const model::ThreadValue value(fn_, d);
    const auto first = value(0, 0, 0);
    if (!first) return std::nullopt;
    if (value(0, 1, 0) != first || value(0, 0, 1) != first) return Uniformity::None;
    const auto range = model::guardedRange(fn_, d, "%tid.x", {0, 1023});
    const int64_t lo = std::max<int64_t>(range.first, 0), hi = std::min<int64_t>(range.second, 1023);
    bool block = true;
    std::optional<uint64_t> warpValue;
    for (int64_t t = lo; t <= hi; ++t) {
      const auto v = value(t, 0, 0);
      if (!v) return Uniformity::None;
      if (*v != *first) block = false;
      if (t == lo || t % 32 == 0) warpValue = v;
      else if (*v != *warpValue) return Uniformity::None;
    }
    return block ? Uniformity::Block : Uniformity::Warp;
  }

  const FunctionModel& fn_;
  std::unordered_map<InstId, Uniformity> memo_;
  int steps_ = 0;
};

// The same bytes for the two accesses, exhibited: one address, or one object
// at overlapping fixed offsets. Entries of one array at indices that "take the
// same values" (same-array) or one buffer at offsets not provably apart are
// presumptions about two index values, not this check's evidence.
bool exactBytes(const model::AliasEvidence& e) {
  return e.sameBytes() && (e.how == "must-alias" || e.how == "same-object");
}

bool atMostOneLanePerWarp(ThreadSet s) {
  return s == ThreadSet::OneLane || s == ThreadSet::OneThread || s == ThreadSet::OneBlockThread;
}

struct Race {
  InstId write = -1, read = -1;
  bool readAfterWrite = true;
  Uniformity uniformity = Uniformity::Block;
  model::AliasEvidence bytes;
};

report::Diagnostic render(const FunctionModel& fn, const Race& r) {
  const bool warp = r.uniformity == Uniformity::Warp;
  const InstId at = r.readAfterWrite ? r.read : r.write;
  const std::string barrier = warp ? "__syncwarp() (bar.warp.sync)" : "__syncthreads() (bar.sync)";
  auto d = protocol::makeDiagnostic(
      fn, at, "shared-race",
      r.readAfterWrite
          ? "shared-memory read of bytes another thread writes with no barrier between: the read may see the "
            "old or the new value (a data race; a warp shuffle or vote is no memory barrier)"
          : "shared-memory write of bytes other threads still read with no barrier between: it may overwrite "
            "the value before they read it (a data race)",
      fmt::format("put {} between the {} and the {}, reached by every thread {} (outside the thread-index "
                  "branch)",
                  barrier, r.readAfterWrite ? "write" : "reads", r.readAfterWrite ? "read" : "write",
                  warp ? "of the warp" : "of the block"));
  d.fixRequest = noMachineFix(
      "the barrier must be reached by every thread of the warp or block, outside the thread-index branch that "
      "guards one of the accesses: where depends on the control flow");
  protocol::addNote(d, fn, r.readAfterWrite ? r.write : r.read,
                    r.readAfterWrite ? "written here by other threads" : "read here by other threads");
  d.evidence.push_back(report::link(fn, report::LinkKind::DataWrite, r.write, "shared-store"));
  d.evidence.push_back(report::link(fn, report::LinkKind::GuardedRead, r.read, r.bytes.how, r.bytes.detail,
                                    r.bytes.sameBytes()));
  d.evidence.push_back(report::link(
      fn, report::LinkKind::Partner, r.readAfterWrite ? r.read : r.write, warp ? "warp-uniform-address" : "uniform-address",
      warp ? "one lane per warp makes one access and the other lanes of its warp the other, at an address the "
             "same for the warp's lanes"
           : "some threads make one access and threads that skip it make the other, at an address the same for "
             "every thread of the block"));
  d.evidence.push_back(report::link(fn, report::LinkKind::HandOff, at, "no-synchronization",
                                    "a path between the two accesses passes no barrier, warp sync, mbarrier, "
                                    "strong access or call"));
  return d;
}

}  // namespace

void checkSharedRace(const FunctionModel& fn, Findings& out) {
  if (!fn.memory || !fn.values || !fn.roles) return;
  std::vector<InstId> stores;
  std::vector<char> isLoad(fn.instructions.size(), 0);
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (fn.instructions[i].block < 0) continue;
    if (isLocalShared(fn, i, EffectKind::Store)) stores.push_back(i);
    else if (isLocalShared(fn, i, EffectKind::Load)) isLoad[i] = 1;
  }
  if (stores.empty()) return;
  AddressUniformity uniform(fn);
  protocol::ThreadGuards guards(fn);
  std::set<std::string> reported;
  // counter-reset's shared form asks a word that one thread (or one lane per
  // warp) rewrites with a constant or with a value computed from the word
  // itself (a counter, a phase bit): those stores are its question, not this
  // check's (one finding per bug).
  std::unordered_map<InstId, bool> counterWord;
  auto isCounterWord = [&](InstId w) {
    auto [it, fresh] = counterWord.try_emplace(w, false);
    if (!fresh) return it->second;
    const ThreadSet writer = fn.roles->instructionSet(w);
    if (writer != ThreadSet::OneThread && writer != ThreadSet::OneLane && writer != ThreadSet::OneBlockThread)
      return false;
    const auto& store = fn.instructions[w];
    const int value = static_cast<int>(store.operands.size()) - 1;
    if (value <= store.effect.address) return false;
    if (fn.values->constantOf(w, value)) return it->second = true;
    const ptx::Operand& v = store.operands[value];
    if (v.kind != ptx::Operand::Kind::Register) return false;
    std::vector<InstId> sameWord;
    for (InstId l = 0; l < static_cast<InstId>(isLoad.size()); ++l)
      if (isLoad[l] && fn.memory->sameWord(w, l)) sameWord.push_back(l);
    return it->second = !sameWord.empty() && model::valueDependsOn(fn, v.reg, w, sameWord);
  };
  auto differentThreads = [&](InstId w, InstId r, Uniformity u) {
    for (auto [guarded, other] : {std::pair{w, r}, std::pair{r, w}}) {
      const ThreadSet g = fn.roles->instructionSet(guarded), o = fn.roles->instructionSet(other);
      if (!atMostOneLanePerWarp(g) || atMostOneLanePerWarp(o)) continue;
      if (guards.underThreadIndexGuard(guarded) && !guards.underThreadIndexGuard(other)) return true;
      if (u != Uniformity::Block || g == ThreadSet::OneLane) continue;
      constexpr std::pair<int64_t, int64_t> kAny{0, 1023};
      const auto rg = model::guardedRange(fn, guarded, "%tid.x", kAny), ro = model::guardedRange(fn, other, "%tid.x", kAny);
      // A thread-index guard over the other access that gives no range (`(%tid.x | x) == 0`,
      // `%tid.x % 2 == 0`) may admit the guarded access's one thread alone: its threads are
      // not decided, so neither is the pair (cuDNN's `1C11` batch norm: thread 0 stores and
      // thread 0 alone reads, under an `or` of the thread index and a block index).
      if (ro == kAny && guards.underThreadIndexGuard(other)) continue;
      if (rg.first == rg.second && (ro.first != rg.first || ro.second != rg.first)) return true;
    }
    return false;
  };
  auto consider = [&](InstId w, InstId r, bool readAfterWrite, Uniformity uw) {
    if (isCounterWord(w)) return;
    const Uniformity ur = uniform.of(r);
    if (ur == Uniformity::None) return;
    const Uniformity u = (uw == Uniformity::Warp || ur == Uniformity::Warp) ? Uniformity::Warp : Uniformity::Block;
    // Different threads: one access is made by at most one lane of each warp
    // (one thread of the block) under a thread-index guard, the other under
    // no thread-index guard (data tests only: every thread that gets there),
    // or, for one thread of the block at a block-wide address, by threads
    // whose index range holds others.
    if (!differentThreads(w, r, u)) return;
    const auto& ew = fn.instructions[w].effect;
    const auto& er = fn.instructions[r].effect;
    model::AliasEvidence bytes = fn.memory->aliasEvidence(w, ew.address, 0, r, er.address, 0, false);
    if (!exactBytes(bytes)) return;
    const InstId at = readAfterWrite ? r : w;
    if (!reported.insert(protocol::siteKey(fn, at)).second) return;
    out.push_back(render(fn, Race{w, r, readAfterWrite, u, bytes}));
  };
  std::vector<std::pair<InstId, Uniformity>> uniformStores;
  for (InstId w : stores) {
    const Uniformity uw = uniform.of(w);
    if (uw == Uniformity::None) continue;
    uniformStores.push_back({w, uw});
    auto wanted = [&](InstId i) { return isLoad[i] != 0; };
    for (InstId r : model::handoff::unsynchronizedAfter(fn, w, wanted)) consider(w, r, true, uw);
    for (InstId r : model::handoff::unsynchronizedBefore(fn, w, wanted)) consider(w, r, false, uw);
  }
  if (uniformStores.empty()) return;

  // The two sides of one branch on the thread index: lane 0 stores in one,
  // the other lanes load in the other (nvcc keeps lane 0's value in a
  // register and moves the others' load into the else side). Neither
  // reaches the other, so the walks above do not pair them; the threads of
  // the two sides run them unordered when nothing that may order threads
  // lies between the branch and either access.
  std::vector<std::pair<InstId, Uniformity>> uniformLoads;
  for (InstId i = 0; i < static_cast<InstId>(isLoad.size()); ++i)
    if (isLoad[i])
      if (const Uniformity u = uniform.of(i); u != Uniformity::None) uniformLoads.push_back({i, u});
  if (uniformLoads.empty() || uniformStores.size() * uniformLoads.size() > 200000) return;
  const model::BlockReachability reach(fn);
  auto commonDominator = [&](model::BlockId a, model::BlockId b) -> model::BlockId {
    std::set<model::BlockId> above;
    for (model::BlockId x = a; x >= 0 && above.insert(x).second; x = fn.idom[x]) {
    }
    for (model::BlockId y = b; y >= 0; y = fn.idom[y])
      if (above.count(y)) return y;
    return -1;
  };
  // A relaxed or volatile atomic, load or store synchronizes only with a
  // fence on the same side (fence-fence synchronization, MCM "Release and
  // acquire patterns"): with no fence between, a relaxed `atomicAdd` on a
  // global cursor does not order the two sides.
  auto unsynchronizedFrom = [&](InstId branch, InstId to) {
    const std::vector<char> between = model::instructionsBetween(fn, branch, to);
    bool fence = false, relaxed = false;
    for (InstId i = 0; i < static_cast<InstId>(between.size()); ++i) {
      if (!between[i]) continue;
      const auto& e = fn.instructions[i].effect;
      fence |= e.kind == EffectKind::Fence;
      const bool access =
          e.kind == EffectKind::Load || e.kind == EffectKind::Store || e.kind == EffectKind::ReadModifyWrite;
      if (access && (e.semantics == Semantics::Relaxed || e.semantics == Semantics::Volatile)) relaxed = true;
      else if (model::handoff::mayOrderThreads(fn, i)) return false;
    }
    return !(fence && relaxed);
  };
  for (auto [w, uw] : uniformStores) {
    const model::BlockId bw = fn.blockOf[w];
    for (auto [r, ur] : uniformLoads) {
      const model::BlockId br = fn.blockOf[r];
      if (bw == br || reach.reaches(bw, br) || reach.reaches(br, bw)) continue;
      const model::BlockId top = commonDominator(bw, br);
      if (top < 0) continue;
      const InstId branch = model::conditionalBranch(fn, top);
      if (branch < 0 || !guards.onThreadIndex(branch)) continue;
      const Uniformity u = (uw == Uniformity::Warp || ur == Uniformity::Warp) ? Uniformity::Warp : Uniformity::Block;
      if (!atMostOneLanePerWarp(fn.roles->instructionSet(w)) && !atMostOneLanePerWarp(fn.roles->instructionSet(r)))
        continue;
      if (reported.count(protocol::siteKey(fn, r)) || isCounterWord(w)) continue;
      const auto& ew = fn.instructions[w].effect;
      const auto& er = fn.instructions[r].effect;
      model::AliasEvidence bytes = fn.memory->aliasEvidence(w, ew.address, 0, r, er.address, 0, false);
      if (!exactBytes(bytes) || !unsynchronizedFrom(branch, w) || !unsynchronizedFrom(branch, r)) continue;
      reported.insert(protocol::siteKey(fn, r));
      out.push_back(render(fn, Race{w, r, true, u, bytes}));
    }
  }
}

}  // namespace fenceline::checks
