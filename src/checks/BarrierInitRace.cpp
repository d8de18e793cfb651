// barrier-init-race: one thread of one block (tid == c && ctaid == c) stores
// an initial value (st, or atom.exch; a constant or not: `*bar = MAGIC -
// gridDim.x` races like `*bar = 0`) to a global word that threads of other
// blocks update atomically in the same kernel. Blocks run in any order; nothing
// orders the initialization before the others' updates. Reported at the
// store, with a note at an update.
//
// An update that a software group barrier orders after the store (model/
// Protocol.h isPublishedByGroupBarrier: the storing thread releases and
// arrives, every block spins with an acquire, then __syncthreads()) does not
// race with it.
//
// A reset by the last arriver is guarded by the arrival's return value, not
// by thread and block ids: it is not a one-thread-of-one-block store. A reset
// after a wait on the counter (model/Protocol.h isResetAfterWait) follows the
// arrivals it waited for: not reported.
//
// A store that runs only in a launch of one block (`if (gridDim.x == 1)
// *out = init; else { semaphore hand-off }`, Eigen's FullReductionKernel;
// UniformModes::singleBlockLaunch) has no other block to race with, and an
// update on the other side of a launch-uniform condition from the store
// (exclusiveModes: a kernel parameter, the grid's size) never runs in the
// store's launch: neither is reported (issue 34, shape P6).
//
// Who executes an instruction comes from ThreadRoles; where it does not
// answer "one thread of one block", the dominating branch conditions are read
// here as well: `ctaid.* == 0` and `tid.* == 0` tests, alone or combined with
// `or` (of the ids or of the predicates), and `and`/`not` of predicates. A
// condition holds where its branch edge dominates, not merely its target: the
// join after `if (blockIdx.x == 0) goto publish;` runs in every block.
#include <filesystem>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "checks/Checks.h"
#include "checks/FixPoints.h"
#include "report/Frames.h"
#include "checks/ProtocolReport.h"
#include "model/BranchEdges.h"
#include "model/ThreadRoles.h"
#include "model/UniformModes.h"

namespace fenceline::checks {

using namespace protocol;

namespace {

using model::BlockId;
using model::EffectKind;
using model::ThreadSet;

struct IdTests {
  bool thread = false;  // some %tid.* is pinned
  bool block = false;   // some %ctaid.* is pinned
};

// An id, or an `or(...)` of ids, compared equal to a constant.
void pinnedIds(const FunctionModel& fn, InstId compare, int operand, IdTests& tests) {
  auto ids = fn.values->identitiesNamed(compare, operand);
  tests.thread = tests.thread || ids.thread;
  tests.block = tests.block || ids.block;
}

// Ids pinned when predicate `reg` (at `at`) has value `value`.
void idTests(const FunctionModel& fn, model::ValueReg reg, InstId at, bool value, IdTests& tests, int depth = 0) {
  if (depth > 8) return;
  auto defs = fn.values->reachingDefinitions(reg, at);
  if (defs.size() != 1) return;
  const auto& inst = fn.instructions[defs[0]];
  const auto& ops = inst.operands;
  const std::string_view op = inst.opcode();
  if (op == "setp" && ops.size() >= 3) {
    bool equal = (inst.hasModifier("eq") && value) || (inst.hasModifier("ne") && !value);
    if (!equal) return;
    bool aConst = fn.values->constantOf(defs[0], 1).has_value();
    bool bConst = fn.values->constantOf(defs[0], 2).has_value();
    if (bConst) pinnedIds(fn, defs[0], 1, tests);
    if (aConst) pinnedIds(fn, defs[0], 2, tests);
    return;
  }
  auto predicate = [&](size_t k) { return k < ops.size() && ops[k].kind == ptx::Operand::Kind::Register; };
  if (op == "not" && predicate(1)) return idTests(fn, ops[1].reg, defs[0], !value, tests, depth + 1);
  if ((op == "or" && !value) || (op == "and" && value)) {
    for (size_t k = 1; k <= 2; ++k)
      if (predicate(k)) idTests(fn, ops[k].reg, defs[0], value, tests, depth + 1);
  }
}

bool oneThreadOfOneBlock(const ProtocolModel& ctx, InstId inst) {
  const FunctionModel& fn = ctx.function();
  if (fn.roles && fn.roles->instructionSet(inst) == ThreadSet::OneBlockThread) return true;
  IdTests tests;
  BlockId block = fn.blockOf[inst];
  if (const auto& guard = fn.instructions[inst].guard; guard && guard->reg >= 0)
    idTests(fn, guard->reg, inst, !guard->negated, tests);
  for (BlockId b = block >= 0 ? fn.idom[block] : -1; b >= 0; b = fn.idom[b]) {
    const auto& bb = fn.blocks[b];
    if (bb.last <= bb.first || bb.successors.size() != 2) continue;
    InstId branch = bb.last - 1;
    const auto& br = fn.instructions[branch];
    if (br.opcode() != "bra" || !br.guard || br.guard->reg < 0) continue;
    // Which successor leads to the instruction? The taken target is the one
    // that is not the fall-through block (the next block in layout).
    BlockId fallThrough = -1, taken = -1;
    for (BlockId s : bb.successors) (fn.blocks[s].first == bb.last ? fallThrough : taken) = s;
    if (fallThrough < 0 || taken < 0) continue;
    bool viaTaken = model::edgeDominatesBlock(fn, b, taken, block) && !fn.dominates(fallThrough, block);
    bool viaFall = model::edgeDominatesBlock(fn, b, fallThrough, block) && !fn.dominates(taken, block);
    if (!viaTaken && !viaFall) continue;
    bool value = viaTaken != br.guard->negated;
    idTests(fn, br.guard->reg, branch, value, tests);
  }
  return tests.thread && tests.block;
}

// A store or exchange that sets a word to a value of its own (not an
// update of the old value): the value may be anything.
bool isInitialization(const FunctionModel& fn, InstId i) {
  const auto& inst = fn.instructions[i];
  if (!model::writesGlobalMemory(fn, i)) return false;
  return inst.effect.kind == EffectKind::Store || inst.hasModifier("exch");
}

}  // namespace

void checkBarrierInitRace(const FunctionModel& fn, Findings& out) {
  const ProtocolModel& ctx = model::protocolOf(fn);
  std::set<std::string> reported;
  // The global read-modify-writes, found once: without one there is no
  // counter, and each initialization is compared with these only (a kernel
  // of 20,000 inlined calls has as many stores and no atomic).
  std::vector<InstId> updates;
  for (InstId j = 0; j < static_cast<InstId>(fn.instructions.size()); ++j)
    if (fn.instructions[j].effect.kind == EffectKind::ReadModifyWrite && model::writesGlobalMemory(fn, j) &&
        !ctx.isIdentityUpdate(j))
      updates.push_back(j);
  if (updates.empty()) return;
  std::optional<model::UniformModes> modes;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    if (!isInitialization(fn, i) || !oneThreadOfOneBlock(ctx, i) || ctx.isResetAfterWait(i)) continue;
    // Launch-uniform predicates, asked only of a store that is a candidate
    // (most kernels have none).
    if (!modes) modes.emplace(fn);
    if (modes->singleBlockLaunch(i)) continue;  // no other block in its launch
    InstId update = -1;
    for (InstId j : updates) {
      if (j == i || !fn.memory->sameWord(i, j)) continue;
      if (ctx.exclusiveModes(i, j) || modes->singleBlockLaunch(j)) continue;  // never in the store's launch
      if (!oneThreadOfOneBlock(ctx, j) && !ctx.isPublishedByGroupBarrier(i, j)) {
        update = j;
        break;
      }
    }
    if (update < 0 || !reported.insert(siteKey(fn, i)).second) continue;
    auto d = makeDiagnostic(
        fn, i, "barrier-init-race",
        "grid-scope counter is initialized by one thread of one block while other blocks of the same launch "
        "update it; nothing orders this store before their updates",
        "initialize the counter on the host (cudaMemsetAsync before the launch) or in an earlier kernel; to reuse "
        "it, let the last arriver reset it (if (atomicAdd(count, 1) == expected - 1) *count = 0;)");
    addNote(d, fn, update, "other blocks update the counter here");
    {
      const report::Location at = report::locationOf(fn, i);
      // The statement itself: the innermost frame outside the toolkit's headers (atomicExch's
      // body is not the user's line; a user helper's is).
      size_t k = 0;
      auto toolkit = [](const std::string& file) {
        return file.find("/cuda/include/") != std::string::npos || file.find("/targets/") != std::string::npos ||
               file.starts_with("/usr/local/cuda");
      };
      while (k + 1 < at.frames.size() && toolkit(at.frames[k].file)) ++k;
      const std::string line =
          at.frames.empty() ? std::string("this store")
                            : k + 1 == at.frames.size()
                                  ? fmt::format("the store on line {}", at.frames[k].line)
                                  : fmt::format("the store on line {} of {} (in a helper the kernel calls)",
                                                at.frames[k].line,
                                                std::filesystem::path(at.frames[k].file).filename().string());
      d.fixRequest = noMachineFix(fmt::format(
          "no edit inside the kernel is correct (no in-kernel barrier orders one block's store before other blocks' "
          "first update; a grid barrier would itself need an initialized counter): delete {} and set the counter "
          "on the host before the launch (cudaMemsetAsync(counter, 0, sizeof(unsigned), stream)) or in the kernel "
          "launched before this one; to reuse it, let the last arriver reset it",
          line));
    }
    d.evidence.push_back(report::link(fn, report::LinkKind::Barrier, i, "one-thread-of-one-block",
                                      "one thread of one block stores the counter's initial value"));
    d.evidence.push_back(report::link(fn, report::LinkKind::Use, update, "same-word",
                                      "threads of other blocks update the same word in the same launch"));
    out.push_back(std::move(d));
  }
}

}  // namespace fenceline::checks
