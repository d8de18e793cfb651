// counter-reset: a counter or phase word that other threads still need is
// rewritten (issue 30, shape 5). Three forms, each reported at the rewrite:
//
//  - A global counter that a spin loop polls is reset to a constant on which
//    no waiter leaves (ProtocolModel::isPolledWordReset: `while (c < gridDim.x)`
//    and `c = 0`) while a waiter of the same round may still be polling:
//     (last)  the writer's own arrival on the counter is the ticket that
//             completed it (its returned value said "last"), and the reset
//             follows without a wait: the other arrivers poll for the count
//             that the reset overwrites, and one that reads after the reset
//             never leaves;
//     (after) the writer waited on the counter itself, and the reset follows
//             its own spin with no other wait between: other blocks still
//             polling for the count read the reset value instead.
//    In both, the poll runs in every block (no block-index test guards it;
//    a poll of block 0 alone is the writer's own, FlashInfer's Lamport flags).
//  - A generation word compared with a snapshot (`gen = ld(g); ... while
//    (ld(g) == gen)`) whose every write in the kernel stores one constant: it
//    never changes after the first round, so a later round's waiters, whose
//    snapshot is that constant, never leave (a reset of the wrong word:
//    the generation instead of the count).
//  - A counter or phase word in shared memory (the value stored is a
//    constant, or computed from a read of the word itself: a flip, an
//    advance) written by one elected thread while threads its guard leaves
//    out read the same word, with a path between such a read and the write
//    (either way) that passes no barrier: bar.sync/bar.arrive, an mbarrier
//    wait, and for one lane per warp bar.warp.sync (cuCollections #337: the
//    next round reads the counter before lane 0's reset; Triton #11334: the
//    phase word is flipped before another warp has read it).
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "checks/ProtocolReport.h"
#include "model/BranchEdges.h"
#include "model/Memory.h"
#include "model/Operands.h"
#include "model/OutsideValuePaths.h"
#include "model/OwnWords.h"
#include "model/Paths.h"
#include "model/SpinLoops.h"
#include "model/ThreadDecidedBranches.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::checks {

using namespace protocol;

namespace {

using model::BlockId;
using model::EffectKind;
using model::Space;
using model::ThreadSet;
using report::LinkKind;

constexpr std::string_view kCheck = "counter-reset";

std::string fixText() {
  return "keep the word the waiters poll monotonic: an epoch target that grows with each use, or a separate "
         "generation word that only grows (the last arriver resets the count, then stores generation + 1 with "
         "release; the waiters poll the generation); or use cooperative_groups::this_grid().sync()";
}

// A special register that tells blocks apart.
bool isBlockRegister(std::string_view name) {
  return name.starts_with("%ctaid") || name.starts_with("%clusterid") || name.starts_with("%cluster_ctarank") ||
         name.starts_with("%cluster_ctaid");
}

// The register operand's value depends on a special register that tells blocks apart.
bool dependsOnBlockIndex(const FunctionModel& fn, model::ValueReg reg, InstId at) {
  return dependsOnSpecialRegister(fn, reg, at, isBlockRegister);
}

// Some branch that every path to `inst` takes (or its own predicate) tests
// the block's position: the code may run in one block only.
bool guardedByBlockIndex(const FunctionModel& fn, InstId inst) {
  const auto& guard = fn.instructions[inst].guard;
  if (guard && guard->reg >= 0 && dependsOnBlockIndex(fn, guard->reg, inst)) return true;
  const BlockId home = fn.blockOf[inst];
  for (BlockId b = home; b >= 0; b = fn.idom[b]) {
    model::poll();
    // The one edge into b that is not a back edge (a spin's header has its own).
    BlockId entry = -1;
    int entries = 0;
    for (BlockId p : fn.blocks[b].predecessors)
      if (!fn.dominates(b, p)) {
        entry = p;
        ++entries;
      }
    if (entries == 1) {
      const InstId branch = model::conditionalBranch(fn, entry);
      if (branch >= 0 && fn.instructions[branch].guard->reg >= 0 &&
          dependsOnBlockIndex(fn, fn.instructions[branch].guard->reg, branch))
        return true;
    }
    if (fn.idom[b] == b) break;
  }
  return false;
}

Space spaceOf(const FunctionModel& fn, InstId i) {
  const auto& e = fn.instructions[i].effect;
  Space s = e.space;
  if (s == Space::Generic && fn.memory && e.address >= 0) s = fn.memory->space(i, e.address);
  return s;
}

report::EvidenceLink aliasLink(const FunctionModel& fn, LinkKind kind, InstId at, const model::AliasEvidence& e) {
  return report::link(fn, kind, at, e.how, e.detail, e.decided);
}


// "line N" of the statement in the kernel's own file (not of the library
// helper below it: cuda::atomic_ref's load).
std::string describeUser(const FunctionModel& fn, InstId inst) {
  const auto chain = fn.sourceChain(inst);
  for (const auto& frame : chain)
    if (frame.file == chain.back().file) return fmt::format("line {}", frame.line);
  return describe(fn, inst);
}

// --- Global counters polled by a spin ---------------------------------------

// The load whose value every exit of the spin compares with the polled value
// for inequality (`while (ld(g) == gen)` with `gen = ld(g)` read before the
// loop): the waiter's snapshot of a generation word. -1 when not so.
InstId snapshotOf(const FunctionModel& fn, const model::SpinLoop& spin, InstId poll) {
  InstId snapshot = -1;
  for (InstId e : spin.exitBranches) {
    const BlockId b = fn.blockOf[e];
    for (BlockId s : fn.blocks[b].successors) {
      if (spin.containsBlock(fn, s)) continue;
      const std::optional<model::EdgeCondition> edge = model::edgeCondition(fn, b, s);
      if (!edge) return -1;
      const std::vector<InstId> defs = fn.values->reachingDefinitions(edge->predicate, edge->branch);
      if (defs.size() != 1) return -1;
      const model::Inst& setp = fn.instructions[defs[0]];
      if (setp.opcode() != "setp" || setp.operands.size() != 3) return -1;
      const bool equal = setp.hasModifier("eq");
      if (!equal && !setp.hasModifier("ne")) return -1;
      // The exit holds the inequality.
      if ((equal && edge->value) || (!equal && !edge->value)) return -1;
      InstId found = -1;
      for (int side : {1, 2}) {
        const ptx::Operand& a = setp.operands[side];
        const ptx::Operand& other = setp.operands[3 - side];
        if (a.kind != ptx::Operand::Kind::Register || other.kind != ptx::Operand::Kind::Register) continue;
        const auto from = fn.values->reachingDefinitions(a.reg, defs[0]);
        if (from.size() != 1 || from[0] != poll) continue;
        const auto snap = fn.values->reachingDefinitions(other.reg, defs[0]);
        if (snap.size() != 1) continue;
        const model::Inst& load = fn.instructions[snap[0]];
        if ((load.effect.kind != EffectKind::Load && load.effect.kind != EffectKind::ReadModifyWrite) ||
            spin.contains(fn, snap[0]) || !fn.memory->sameWord(snap[0], poll))
          continue;
        found = snap[0];
      }
      if (found < 0 || (snapshot >= 0 && snapshot != found)) return -1;
      snapshot = found;
    }
  }
  return snapshot;
}

// The partner link: decided in a kernel; in a `.func` checked on its own the
// callers (who runs it, in how many blocks, under which guards) are not
// known, and the kernels that inline it report the site with them.
report::EvidenceLink partnerLink(const FunctionModel& fn, InstId at, std::string how, std::string detail) {
  if (fn.function && !fn.function->isEntry)
    return report::undecidedLink(fn, LinkKind::Partner, at, "callers-unknown",
                                 "a function checked on its own: who calls it, and in how many blocks or threads, "
                                 "is not known here (the kernels that inline it are checked with their calls)");
  return report::link(fn, LinkKind::Partner, at, std::move(how), std::move(detail));
}

// One finding per source statement: a reset inlined at several call sites
// (a barrier helper called twice per round) is one statement to fix. The
// statement is the innermost frame in the kernel's own file (the outermost
// frame's): below it are library helpers (cuda::atomic_ref's store), above
// it the call sites.
struct Reported {
  std::set<std::string> sites;
  bool first(const FunctionModel& fn, InstId at) {
    const auto chain = fn.sourceChain(at);
    std::string key = siteKey(fn, at);
    for (const auto& frame : chain)
      if (frame.file == chain.back().file) {
        key = fmt::format("{}:{}:{}", frame.file, frame.line, frame.column);
        break;
      }
    return sites.insert(key).second;
  }
};

void checkPolledResets(const FunctionModel& fn, const model::ProtocolModel& ctx, Reported& reported,
                       Findings& out) {
  for (InstId s = 0; s < static_cast<InstId>(fn.instructions.size()); ++s) {
    if (fn.instructions[s].block < 0 || !model::writesGlobalMemory(fn, s) || !ctx.isPolledWordReset(s)) continue;
    const int64_t value = *ctx.storedConstant(s);
    for (InstId poll : ctx.pollsOfWord(s)) {
      const model::SpinLoop* spin = ctx.spinContaining(poll);
      if (!spin || guardedByBlockIndex(fn, poll)) continue;  // maybe one block's own wait
      const model::AliasEvidence same = ctx.aliasEvidence(s, poll);
      auto pollOfWord = [&](InstId i) { return ctx.isPoll(i) && ctx.maySameWord(i, s); };
      auto isReset = [&](InstId i) { return i == s; };
      // (last) The writer's ticket on the counter said it completed the count.
      InstId ticket = -1;
      for (InstId t : ctx.tickets())
        if (fn.dominatesInst(t, s) && ctx.maySameWord(t, s) && model::reachable(fn, t, poll) &&
            model::findReachable(fn, t, isReset, pollOfWord) >= 0) {
          ticket = t;
          break;
        }
      // (after) The writer's own wait on the counter comes first, and no other wait between.
      bool afterOwnWait = false;
      if (ticket < 0 && fn.dominatesInst(poll, s) && !spin->contains(fn, s)) {
        // Another spin (a second grid barrier) or an opaque call (a library's
        // barrier) may order the other pollers before the reset.
        auto otherWait = [&](InstId i) {
          const model::SpinLoop* other = ctx.spinContaining(i);
          return (other && other != spin) || fn.instructions[i].effect.kind == EffectKind::Call;
        };
        afterOwnWait = model::findReachable(fn, poll, isReset, otherWait) >= 0;
      }
      if (ticket < 0 && !afterOwnWait) continue;
      if (!reported.first(fn, s)) break;
      auto d = makeDiagnostic(
          fn, s, std::string(kCheck),
          ticket >= 0
              ? fmt::format("the last arriver resets the counter to {} while the other arrivers may still be "
                            "polling it for the completed count ({}); one that reads after the reset never "
                            "leaves its wait",
                            value, describeUser(fn, poll))
              : fmt::format("the counter is reset to {} after this thread's own wait on it ({}), while other "
                            "blocks may still be polling it for the completed count; one that reads after the "
                            "reset never leaves its wait (and the next round's arrivals race with the reset)",
                            value, describeUser(fn, poll)),
          fixText());
      addNote(d, fn, poll, fmt::format("the waiters poll this word and leave only on a value that {} is not",
                                       value));
      d.fixRequest = noMachineFix(
          "the fix changes the barrier's protocol (a generation word, an epoch target), not one line");
      d.evidence.push_back(report::link(fn, LinkKind::Barrier, s, "reset-to-constant",
                                        fmt::format("stores {} to the counter", value)));
      d.evidence.push_back(report::link(
          fn, LinkKind::Poll, poll, "exit-needs-old-value",
          fmt::format("every exit of this spin loop fails for {}: it waits for the value the reset overwrites",
                      value)));
      d.evidence.push_back(aliasLink(fn, LinkKind::SameBytes, -1, same));
      if (ticket >= 0)
        d.evidence.push_back(report::link(
            fn, LinkKind::Use, ticket, "last-arrival",
            "the writer's own arrival returned the count that makes it the last: the other arrivers came "
            "before it and wait for the count, and the reset follows with no wait for them"));
      else
        d.evidence.push_back(report::link(
            fn, LinkKind::Use, poll, "own-wait-first",
            "the writer leaves its own wait on the counter, then resets it with no other wait between"));
      d.evidence.push_back(partnerLink(fn, poll, "every-block-polls",
                                      "no block-index test guards the poll: every block's copy waits on the "
                                      "counter"));
      out.push_back(std::move(d));
      break;
    }
  }
}

// A generation word whose every write stores one constant.
void checkFrozenGeneration(const FunctionModel& fn, const model::ProtocolModel& ctx, Reported& reported,
                           Findings& out) {
  for (InstId s = 0; s < static_cast<InstId>(fn.instructions.size()); ++s) {
    if (fn.instructions[s].block < 0 || !model::writesGlobalMemory(fn, s) || ctx.isPoll(s)) continue;
    const std::optional<int64_t> value = ctx.storedConstant(s);
    if (!value) continue;
    for (InstId poll : ctx.pollsOfWord(s)) {
      const model::SpinLoop* spin = ctx.spinContaining(poll);
      if (!spin || spin->contains(fn, s)) continue;
      const InstId snapshot = snapshotOf(fn, *spin, poll);
      if (snapshot < 0) continue;
      // Every write of the kernel that may touch the word stores the same constant.
      bool frozen = true;
      for (InstId w = 0; w < static_cast<InstId>(fn.instructions.size()) && frozen; ++w) {
        if (fn.instructions[w].block < 0 || w == s || !model::writesGlobalMemory(fn, w)) continue;
        if (w == poll || ctx.isIdentityUpdate(w)) continue;
        if (!ctx.maySameWord(w, poll)) continue;
        const std::optional<int64_t> other = ctx.storedConstant(w);
        frozen = other && *other == *value;
      }
      if (!frozen || !reported.first(fn, s)) continue;
      const model::AliasEvidence same = ctx.aliasEvidence(s, poll);
      auto d = makeDiagnostic(
          fn, s, std::string(kCheck),
          fmt::format("the generation word that the waiters compare with their snapshot ({}) is only ever set to "
                      "{}: after the first round it no longer changes, and a later round's waiters never leave "
                      "(the reset belongs to the count; the generation must grow)",
                      describeUser(fn, poll), *value),
          "store generation + 1 (with release) instead, and reset the arrival count before it");
      addNote(d, fn, snapshot, "the waiters' snapshot of the generation");
      d.fixRequest = noMachineFix("the fix changes the barrier's protocol (which word is reset, which grows)");
      d.evidence.push_back(report::link(fn, LinkKind::Barrier, s, "reset-to-constant",
                                        fmt::format("stores {} to the generation word", *value)));
      d.evidence.push_back(report::link(fn, LinkKind::Poll, poll, "compares-with-snapshot",
                                        "the spin leaves only when the word differs from the snapshot"));
      d.evidence.push_back(aliasLink(fn, LinkKind::SameBytes, -1, same));
      d.evidence.push_back(report::link(fn, LinkKind::Use, snapshot, "snapshot-of-same-word",
                                        "the snapshot is a read of the polled word before the wait"));
      d.evidence.push_back(partnerLink(fn, -1, "every-write-same-constant",
                                        fmt::format("every write of this kernel that may touch the word stores {}",
                                                    *value)));
      out.push_back(std::move(d));
      break;
    }
  }
}

// --- Shared-memory counters and phase words -----------------------------------

// The result of instruction `d` is the same for the 32 lanes of a warp: it
// depends on the thread index only through its bits 5 and up (`tid >> k`
// with k >= 5, `(tid >> 3) & 124`, `tid / 32`, `tid & ~31`), or through a
// shfl.sync.idx broadcast; arithmetic over such values keeps it.
bool warpUniform(const FunctionModel& fn, InstId d, int depth = 0) {
  if (depth > 6) return false;
  const model::Inst& inst = fn.instructions[d];
  if (inst.opcode() == "shfl") return inst.hasModifier("idx");
  const int last = static_cast<int>(inst.operands.size()) - 1;
  const std::optional<int64_t> c = last >= 2 ? fn.values->constantOf(d, last) : std::nullopt;
  auto trailingZeros = [](int64_t m) {
    int n = 0;
    while (n < 32 && ((m >> n) & 1) == 0) ++n;
    return n;
  };
  // The low bits of the thread index that the instruction's input has lost already (`x >> k`).
  auto shiftedBy = [&](int operand) -> int {
    const ptx::Operand& op = inst.operands[operand];
    if (op.kind != ptx::Operand::Kind::Register) return 0;
    const InstId e = fn.values->definition(op.reg, d);
    if (e < 0 || fn.instructions[e].opcode() != "shr") return 0;
    const int el = static_cast<int>(fn.instructions[e].operands.size()) - 1;
    const std::optional<int64_t> k = fn.values->constantOf(e, el);
    return k ? static_cast<int>(*k) : 0;
  };
  if (c && inst.opcode() == "shr" && *c >= 5) return true;
  if (c && inst.opcode() == "div" && *c > 0 && *c % 32 == 0) return true;
  if (c && inst.opcode() == "and" && trailingZeros(*c) + shiftedBy(1) >= 5) return true;
  if (inst.effect.kind != EffectKind::None) return false;
  static constexpr std::string_view kKeeps[] = {"shl", "mul", "add", "sub", "cvt", "mov", "mad", "or"};
  if (std::none_of(std::begin(kKeeps), std::end(kKeeps), [&](std::string_view k) { return inst.opcode() == k; }))
    return false;
  for (int i = 1; i <= last; ++i) {
    const ptx::Operand& op = inst.operands[i];
    if (op.kind == ptx::Operand::Kind::Special && (op.text.starts_with("%tid") || op.text == "%laneid")) return false;
    if (op.kind != ptx::Operand::Kind::Register || !dependsOnThreadIndex(fn, op.reg, d)) continue;
    const InstId e = fn.values->definition(op.reg, d);
    if (e < 0 || !warpUniform(fn, e, depth + 1)) return false;
  }
  return true;
}

// The address of `access` names one word for every thread that may read it
// with the writer: for one thread of the block, a word that does not depend
// on the thread index; for one lane per warp, a word that depends on it only
// through the warp's index (`counter[tid / 32]`). Loop counters and merges
// are not taken as uniform.
bool uniformAddress(const FunctionModel& fn, InstId access, bool perWarp) {
  const model::AbstractValue v = fn.values->operandValue(access, fn.instructions[access].effect.address);
  if (!v.known) return false;
  for (const auto& t : v.terms) {
    if (t.name.starts_with("%ctaid") || t.name.starts_with("%nctaid") || t.name.starts_with("%ntid") ||
        t.name.starts_with("%cluster"))
      continue;
    if (!t.name.starts_with("def:")) return false;
    InstId d = -1;
    try {
      d = static_cast<InstId>(std::stol(t.name.substr(4)));
    } catch (...) {
      return false;
    }
    if (d < 0 || d >= static_cast<InstId>(fn.instructions.size())) return false;
    if (perWarp && warpUniform(fn, d)) continue;
    for (model::ValueReg r : model::registerUse(fn.instructions[d]).read)
      if (dependsOnThreadIndex(fn, r, d)) return false;
    for (const auto& op : fn.instructions[d].operands)
      if (op.kind == ptx::Operand::Kind::Special && (op.text.starts_with("%tid") || op.text == "%laneid"))
        return false;
  }
  return true;
}

// The instructions reached from `from` (forward) or reaching it (backward)
// on paths that pass no instruction satisfying `stop` (`from` excluded).
std::vector<char> barrierFreeRegion(const FunctionModel& fn, InstId from, bool forward,
                                    const std::function<bool(InstId)>& stop) {
  std::vector<char> in(fn.instructions.size(), 0);
  std::vector<char> entered(fn.blocks.size(), 0);
  std::vector<BlockId> work;
  auto scan = [&](BlockId b, InstId start) {  // start: the first instruction to look at
    if (forward) {
      for (InstId i = start; i < fn.blocks[b].last; ++i) {
        if (stop(i)) return;
        in[i] = 1;
      }
      for (BlockId n : fn.blocks[b].successors)
        if (!entered[n]) entered[n] = 1, work.push_back(n);
    } else {
      for (InstId i = start; i >= fn.blocks[b].first; --i) {
        if (stop(i)) return;
        in[i] = 1;
      }
      for (BlockId p : fn.blocks[b].predecessors)
        if (!entered[p]) entered[p] = 1, work.push_back(p);
    }
  };
  const BlockId home = fn.blockOf[from];
  scan(home, forward ? from + 1 : from - 1);
  while (!work.empty()) {
    model::poll();
    const BlockId b = work.back();
    work.pop_back();
    scan(b, forward ? fn.blocks[b].first : fn.blocks[b].last - 1);
  }
  return in;
}

// A read after the rewrite that only the writer's own threads make on the
// paths from the rewrite that pass no barrier (issue 34, cuSOLVER's potrf:
// thread (0, 0) initializes a word before the loop over columns, and the read
// is the diagonal thread's of column j, `tid.y == j && tid.x == tid.y`; on a
// path with no barrier j is its first value, 0, and the reader is (0, 0)).
// The read's guards (its predicate, and the branches whose edges enter the
// blocks that dominate it) are evaluated with each register at its
// definitions on such paths (one must remain): a definition that lies on a
// barrier-free path from the rewrite to the read, or one outside them that
// dominates the rewrite. Every thread index of a block of at most 1024
// threads is tried ((x+1)(y+1)(z+1) <= 1024): each one the read's guards may
// admit must be one the rewrite's thread-index guards select. Several
// writers must store one constant.
bool readByWriterOnBarrierFreePaths(const FunctionModel& fn, InstId write, InstId read, bool constant,
                                    const std::function<bool(InstId)>& barrier) {
  const std::vector<char> after = barrierFreeRegion(fn, write, true, barrier);
  const std::vector<char> before = barrierFreeRegion(fn, read, false, barrier);
  const BlockId wb = fn.blockOf[write];
  const std::function<bool(InstId)> allowed = [&](InstId d) {
    if (after[d]) return before[d] != 0;
    const BlockId db = fn.blockOf[d];
    return db == wb ? d < write : fn.dominates(db, wb);
  };
  std::vector<model::ThreadPredicate> readerGuards, writerGuards;
  std::vector<bool> readerValues, writerValues;
  for (const model::ThreadGuard& g : model::guardsOf(fn, read)) {
    readerGuards.emplace_back(fn, g.predicate, g.at, &allowed);
    readerValues.push_back(g.value);
  }
  for (const model::ThreadGuard& g : model::guardsOf(fn, write)) {
    if (!dependsOnThreadIndex(fn, g.predicate, g.at)) continue;  // a data guard: fewer writes, never more
    writerGuards.emplace_back(fn, g.predicate, g.at);
    writerValues.push_back(g.value);
  }
  if (writerGuards.empty()) return false;
  // The writer's threads: nothing when its guards are not decided for `t`.
  auto writes = [&](int64_t x, int64_t y, int64_t z) -> std::optional<bool> {
    for (size_t k = 0; k < writerGuards.size(); ++k) {
      const std::optional<bool> v = writerGuards[k](x, y, z);
      if (!v) return std::nullopt;
      if (*v != writerValues[k]) return false;
    }
    return true;
  };
  auto forEachThread = [](const std::function<bool(int64_t, int64_t, int64_t)>& visit) {
    for (int64_t z = 0; z < 64; ++z)
      for (int64_t y = 0; (y + 1) * (z + 1) <= 1024; ++y)
        for (int64_t x = 0; (x + 1) * (y + 1) * (z + 1) <= 1024; ++x)
          if (!visit(x, y, z)) return false;
    return true;
  };
  int readers = 0;
  const bool ownReads = forEachThread([&](int64_t x, int64_t y, int64_t z) {
    for (size_t k = 0; k < readerGuards.size(); ++k) {
      const std::optional<bool> v = readerGuards[k](x, y, z);
      if (v && *v != readerValues[k]) return true;  // not a reader
    }
    ++readers;
    return writes(x, y, z) == true;
  });
  if (!ownReads || readers == 0) return false;
  if (constant) return true;
  int writers = 0;
  forEachThread([&](int64_t x, int64_t y, int64_t z) {
    const std::optional<bool> w = writes(x, y, z);
    if (!w) writers = 2;  // not decided: take it for several
    else writers += *w;
    return writers <= 1;
  });
  return writers == 1;
}

void checkSharedRewrites(const FunctionModel& fn, Reported& reported, Findings& out) {
  if (!fn.roles) return;
  const auto count = static_cast<InstId>(fn.instructions.size());
  std::vector<InstId> loads, writes;
  for (InstId i = 0; i < count; ++i) {
    if (fn.instructions[i].block < 0) continue;
    const auto& e = fn.instructions[i].effect;
    if (e.address < 0) continue;
    const Space space = spaceOf(fn, i);
    if (space != Space::SharedCta) continue;
    if (e.kind == EffectKind::Load) loads.push_back(i);
    else if (e.kind == EffectKind::Store && e.writes) writes.push_back(i);
  }
  if (loads.empty() || writes.empty()) return;
  ThreadGuards guards(fn);
  for (InstId s : writes) {
    const ThreadSet writer = fn.roles->instructionSet(s);
    if (writer != ThreadSet::OneThread && writer != ThreadSet::OneLane && writer != ThreadSet::OneBlockThread)
      continue;
    const auto& e = fn.instructions[s].effect;
    const bool oneLane = writer == ThreadSet::OneLane;
    // The word is one for the writer and the threads that read it: the same
    // address for every thread (must-alias), which is the writer's word for
    // every reader of its block (or warp).
    if (!uniformAddress(fn, s, oneLane)) continue;
    std::vector<InstId> sameWord;  // loads of that word
    for (InstId l : loads)
      if (fn.memory->sameWord(s, l)) sameWord.push_back(l);
    if (sameWord.empty()) continue;
    // A counter or phase word: a constant, or a value computed from a read of the word itself.
    const model::Inst& store = fn.instructions[s];
    const int valueOperand = static_cast<int>(store.operands.size()) - 1;
    if (valueOperand <= e.address) continue;
    const std::optional<int64_t> constant = fn.values->constantOf(s, valueOperand);
    bool fromItself = false;
    if (!constant) {
      const ptx::Operand& v = store.operands[valueOperand];
      fromItself = v.kind == ptx::Operand::Kind::Register && model::valueDependsOn(fn, v.reg, s, sameWord);
      if (!fromItself) continue;
    }
    // `withWarp`: a bar.warp.sync orders too. It orders the threads of one
    // warp: for one lane per warp, the readers of the warp's own word; for one
    // thread of the block, the readers only if they are all in its warp,
    // which the check does not decide (a region entered by one warp).
    auto orderingBy = [&](bool withWarp) {
      return [&fn, withWarp](InstId i) {
        const auto k = fn.instructions[i].effect.kind;
        return k == EffectKind::CtaBarrier || k == EffectKind::CtaBarrierArrive || k == EffectKind::MbarrierWait ||
               k == EffectKind::Call || (withWarp && k == EffectKind::WarpSync);
      };
    };
    // A read whose word no thread but the reader writes (lane 0's read of
    // its warp's own counter, under a test of its own) is ordered with the
    // rewrite by program order, either way.
    std::unordered_map<InstId, bool> ownWord;
    auto otherThreadsRead = [&](InstId i) {
      if (!std::binary_search(sameWord.begin(), sameWord.end(), i) || !guards.apart(s, i)) return false;
      auto [known, fresh] = ownWord.try_emplace(i, false);
      if (fresh) known->second = model::readsOnlyOwnWrites(fn, s, i);
      return !known->second;
    };
    auto sameAs = [&](InstId r) {
      return fn.memory->aliasEvidence(s, e.address, 0, r, fn.instructions[r].effect.address, 0);
    };
    // Before: a read by other threads from which the rewrite follows with no
    // barrier (they may not have read yet). After: a read by other threads
    // that follows the rewrite with no barrier (they may read the old value).
    // The first whose word is decidedly the rewritten one, else the first.
    InstId read = -1;
    bool before = false, decided = false;
    auto consider = [&](InstId r, bool isBefore) {
      if (decided) return;
      const bool d = sameAs(r).same();
      if (read < 0 || d) {
        read = r;
        before = isBefore;
        decided = d;
      }
    };
    // After the rewrite, a read that only the writer's own threads make on the
    // paths that pass no barrier reads their own store.
    std::unordered_map<InstId, bool> ownFirstTrip;
    auto otherThreadsReadAfter = [&](InstId i) {
      if (!otherThreadsRead(i)) return false;
      auto [known, fresh] = ownFirstTrip.try_emplace(i, false);
      if (fresh) known->second = readByWriterOnBarrierFreePaths(fn, s, i, constant.has_value(), orderingBy(false));
      return !known->second;
    };
    // A read whose barrier-free path to the rewrite is taken only for values no
    // store of the kernel gives the word (model/OutsideValuePaths.h): kept
    // apart, reported only when no other read is, with that link undecided.
    std::vector<InstId> wordStores;
    for (InstId w : writes)
      if (w == s || fn.memory->sameWord(s, w)) wordStores.push_back(w);
    InstId outsideRead = -1;
    std::optional<model::OutsideValuePath> outside;
    auto search = [&](bool withWarp) {
      for (InstId r : model::findReachingBackward(fn, s, otherThreadsRead, orderingBy(withWarp))) {
        auto path = model::pathOnlyForOutsideValues(fn, r, s, wordStores, orderingBy(withWarp));
        if (!path) {
          consider(r, true);
        } else if (outsideRead < 0) {
          outsideRead = r;
          outside = std::move(path);
        }
      }
      for (InstId r : model::findAllReachable(fn, s, otherThreadsReadAfter, orderingBy(withWarp), 8))
        consider(r, false);
    };
    search(/*withWarp=*/true);
    // Only warp barriers between the read and the rewrite (one thread of the
    // block writes): ordered if the readers are in the writer's warp, which
    // is not decided.
    bool warpBarrierOnly = false;
    if (read < 0 && !oneLane) {
      search(/*withWarp=*/false);
      warpBarrierOnly = read >= 0;
    }
    const bool outsideOnly = read < 0 && outsideRead >= 0;
    if (outsideOnly) {
      read = outsideRead;
      before = true;
    }
    if (read < 0 || !reported.first(fn, s)) continue;
    const model::AliasEvidence same =
        fn.memory->aliasEvidence(s, e.address, 0, read, fn.instructions[read].effect.address, 0);
    const char* who = oneLane ? "one lane of the warp" : "one thread";
    const char* what = constant ? "resets" : "rewrites";
    const char* sync = oneLane ? "__syncwarp()" : "__syncthreads()";
    const char* between = warpBarrierOnly ? "only a warp barrier (bar.warp.sync)" : "no barrier";
    auto d = makeDiagnostic(
        fn, s, std::string(kCheck),
        before ? fmt::format("{} {} this shared {} that other threads read ({}) with {} between their read "
                             "and the rewrite: a thread that has not read it yet reads the new value",
                             who, what, constant ? "counter" : "counter or phase word", describeUser(fn, read), between)
               : fmt::format("{} {} this shared {} and other threads read it next ({}) with {} between: "
                             "a thread may still read the old value",
                             who, what, constant ? "counter" : "counter or phase word", describeUser(fn, read), between),
        before ? fmt::format("insert {} after the other threads' reads and before the rewrite", sync)
               : fmt::format("insert {} after the rewrite, before the other threads read the word again", sync));
    if (warpBarrierOnly)
      addNote(d, fn, read,
              before ? "read by threads other than the writer; only a warp barrier (bar.warp.sync) lies between this "
                       "read and the rewrite: it orders them if the reading threads are in the writer's warp"
                     : "read by threads other than the writer; only a warp barrier (bar.warp.sync) lies between the "
                       "rewrite and this read: it orders them if the reading threads are in the writer's warp");
    else
      addNote(d, fn, read,
              before ? "read by threads other than the writer; no barrier orders this read before the rewrite"
                     : "read by threads other than the writer; no barrier orders the rewrite before this read");
    d.fixRequest = noMachineFix(fmt::format(
        "a {} {} the rewrite must be reached by every thread it waits for; place it by hand", sync,
        before ? "before" : "after"));
    d.evidence.push_back(report::link(fn, LinkKind::Barrier, s, constant ? "reset-to-constant" : "rewrite-of-itself",
                                      constant ? fmt::format("stores {}", *constant)
                                               : "stores a value computed from a read of the same word"));
    d.evidence.push_back(report::link(fn, LinkKind::Poll, read, "other-threads",
                                      "threads that the writer's guard leaves out read the word here"));
    d.evidence.push_back(aliasLink(fn, LinkKind::SameBytes, -1, same));
    if (warpBarrierOnly)
      d.evidence.push_back(report::undecidedLink(
          fn, LinkKind::HandOff, -1, "warp-barrier-only",
          fmt::format("every path from the {} to the {} passes a bar.warp.sync but no bar.sync, bar.arrive or "
                      "mbarrier wait: it orders them if the reading threads are all in the writer's warp, which "
                      "is not decided",
                      before ? "read" : "rewrite", before ? "rewrite" : "read")));
    else if (outsideOnly)
      d.evidence.push_back(report::undecidedLink(fn, LinkKind::HandOff, outside->branch, "value-from-outside-kernel",
                                                 outside->detail));
    else
      d.evidence.push_back(report::link(fn, LinkKind::HandOff, -1, before ? "no-barrier-before" : "no-barrier-after",
                                        fmt::format("a path from the {} to the {} passes no bar.sync, bar.arrive, "
                                                    "mbarrier wait or bar.warp.sync",
                                                    before ? "read" : "rewrite", before ? "rewrite" : "read")));
    d.evidence.push_back(partnerLink(fn, s, oneLane ? "one-lane-writer" : "one-thread-writer",
                                      fmt::format("{} of the threads that read the word writes it", who)));
    out.push_back(std::move(d));
  }
}

}  // namespace

void checkCounterReset(const FunctionModel& fn, Findings& out) {
  if (!fn.memory || !fn.values) return;
  Reported reported;
  const model::ProtocolModel& ctx = model::protocolOf(fn);
  if (!ctx.spins().empty()) {
    checkPolledResets(fn, ctx, reported, out);
    checkFrozenGeneration(fn, ctx, reported, out);
  }
  checkSharedRewrites(fn, reported, out);
}

}  // namespace fenceline::checks
