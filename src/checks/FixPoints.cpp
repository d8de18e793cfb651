// Fix anchors from the program model: see FixPoints.h.
#include "checks/FixPoints.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "checks/ProtocolReport.h"
#include "model/GuardedRanges.h"
#include "model/ThreadDecidedBranches.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::checks {

using model::BlockId;
using model::InstId;

InstId outsideElection(const model::FunctionModel& fn, InstId inst, InstId member) {
  const model::ThreadSet threads = fn.roles->blockSet(fn.blockOf[member]);
  BlockId block = fn.blockOf[inst];
  if (fn.roles->blockSet(block) == threads) return inst;
  for (block = fn.idom[block]; block >= 0; block = fn.idom[block]) {
    if (fn.roles->blockSet(block) != threads) continue;
    const model::BasicBlock& entered = fn.blocks[block];
    return entered.last > entered.first ? entered.last - 1 : -1;
  }
  return -1;
}

report::FixRequest insertBefore(const model::FunctionModel& fn, InstId anchor, report::FenceToInsert fence,
                                std::string scope) {
  report::FixRequest request;
  request.placement = report::FixPlacement::BeforeStatement;
  request.anchor = report::locationOf(fn, anchor);
  request.fence = fence;
  request.scope = std::move(scope);
  return request;
}

report::FixRequest insertAfterLoop(const model::FunctionModel& fn, InstId poll, report::FenceToInsert fence,
                                   std::string scope) {
  report::FixRequest request = insertBefore(fn, poll, fence, std::move(scope));
  request.placement = report::FixPlacement::AfterLoop;
  // The loop's own function: the instruction of the poll's innermost loop with the shortest
  // inline chain (the loop's branches are in the function that holds the loop statement; a
  // helper it calls each iteration has longer chains).
  const int32_t loop = fn.loopOf[fn.blockOf[poll]];
  if (loop < 0) return request;
  InstId shortest = -1;
  size_t depth = 0;
  for (model::BlockId block : fn.loops[loop].blocks)
    for (InstId i = fn.blocks[block].first; i < fn.blocks[block].last; ++i) {
      const size_t chain = fn.sourceChain(i).size();
      if (chain > 0 && (shortest < 0 || chain < depth)) shortest = i, depth = chain;
    }
  if (shortest >= 0) request.loop = report::locationOf(fn, shortest);
  return request;
}

report::FixRequest insertAfter(const model::FunctionModel& fn, InstId anchor, report::FenceToInsert fence) {
  report::FixRequest request = insertBefore(fn, anchor, fence);
  request.placement = report::FixPlacement::AfterStatement;
  return request;
}

bool sameInlinedCall(const model::FunctionModel& fn, InstId a, InstId b) {
  const InstId site = fn.instructions[a].callSite;
  return site >= 0 && site == fn.instructions[b].callSite;
}

std::optional<int> freeBarrierId(const model::FunctionModel& fn) {
  std::set<int64_t> used;
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    const auto& op = fn.instructions[i].opcode();
    if (fn.instructions[i].block < 0 || (op != "bar" && op != "barrier")) continue;
    if (fn.instructions[i].hasModifier("warp") || fn.instructions[i].hasModifier("cluster")) continue;
    if (fn.instructions[i].operands.empty()) {
      used.insert(0);
      continue;
    }
    auto id = fn.values->constantOf(i, 0);
    if (!id) return std::nullopt;
    used.insert(*id);
  }
  for (int id = 1; id < 16; ++id)
    if (!used.count(id)) return id;
  return std::nullopt;
}

namespace {

// A value every thread of a block has alike: known, with no thread-index term (block
// coordinates and kernel parameters, `b < blocks`, are alike in every thread).
bool blockUniformValue(const model::FunctionModel& fn, InstId at, int operand) {
  const model::AbstractValue v = fn.values->operandValue(at, operand);
  if (!v.known) return false;
  for (const auto& term : v.terms)
    if (!(term.name.starts_with("%ctaid.") || term.name.starts_with("%nctaid.") || term.name.starts_with("%ntid.") ||
          term.name.starts_with("%clusterid.") || term.name.starts_with("%nclusterid.") ||
          term.name.starts_with("%cluster_ctarank") || term.name.starts_with("param:")))
      return false;
  return v.baseKind == model::AbstractValue::BaseKind::None || v.baseKind == model::AbstractValue::BaseKind::Param;
}

// A predicate every thread of a block has alike (setp of such values; and/or/not of such).
bool blockUniformPredicate(const model::FunctionModel& fn, model::ValueReg reg, InstId at, int depth = 0) {
  if (depth > 8) return false;
  auto defs = fn.values->reachingDefinitions(reg, at);
  if (defs.size() != 1) return false;
  const InstId def = defs[0];
  const auto& inst = fn.instructions[def];
  if (inst.guard) return false;
  const std::string_view op = inst.opcode();
  if (op == "setp") return inst.operands.size() >= 3 && blockUniformValue(fn, def, 1) && blockUniformValue(fn, def, 2);
  if (op == "and" || op == "or" || op == "xor" || op == "not") {
    for (size_t k = 1; k < inst.operands.size(); ++k) {
      const auto& o = inst.operands[k];
      if (o.kind == ptx::Operand::Kind::Register) {
        if (!blockUniformPredicate(fn, o.reg, def, depth + 1)) return false;
      } else if (o.kind != ptx::Operand::Kind::Integer) {
        return false;
      }
    }
    return true;
  }
  return false;
}

}  // namespace

ThreadsAt threadsAt(const model::FunctionModel& fn, InstId inst) {
  ThreadsAt at;
  // The threads at the start of the block (a branch's own guard picks where they go next).
  at.range = fn.instructions[inst].opcode() == "bra"
                 ? model::guardedRangeAtBlock(fn, fn.blockOf[inst], "%tid.x", {0, 1023})
                 : model::guardedRange(fn, inst, "%tid.x", {0, 1023});
  // A branch's guard decides where its threads go next, not whether they get to it.
  if (fn.instructions[inst].guard && fn.instructions[inst].opcode() != "bra") {
    at.why = "the operation has a guard of its own";
    return at;
  }
  // Every branch that decides whether a thread reaches the block: the conditional branch that
  // ends a dominator whose successors do not all lead to the block.
  for (model::BlockId block = fn.blockOf[inst]; block >= 0; block = fn.idom[block]) {
    const model::BlockId up = fn.idom[block];
    if (up < 0) break;
    const auto& dominator = fn.blocks[up];
    if (dominator.last <= dominator.first) continue;
    const InstId branch = dominator.last - 1;
    const auto& b = fn.instructions[branch];
    if (b.opcode() != "bra" || !b.guard) continue;
    // Taken or not, every thread reaches the block: the branch decides nothing.
    if (fn.postDominates(fn.blockOf[inst], up)) continue;
    if (model::predicateForThreadIndex(fn, b.guard->reg, branch, 0).has_value()) continue;  // tid < 128, warp == 0
    if (blockUniformPredicate(fn, b.guard->reg, branch)) continue;                         // blockIdx.x == 0
    at.why = "a branch on a value that differs from thread to thread (data, an election) decides which threads get "
             "there";
    return at;
  }
  at.uniform = true;
  return at;
}

InstId electionBranch(const model::FunctionModel& fn, InstId inst) {
  for (BlockId b = fn.blockOf[inst]; b >= 0; b = fn.idom[b]) {
    if (fn.blocks[b].predecessors.size() != 1) continue;
    const BlockId p = fn.blocks[b].predecessors.front();
    const model::BasicBlock& block = fn.blocks[p];
    if (block.last <= block.first || block.successors.size() < 2) continue;
    const InstId branch = block.last - 1;
    const auto& guard = fn.instructions[branch].guard;
    if (fn.instructions[branch].opcode() != "bra" || !guard || guard->reg < 0) continue;
    if (protocol::dependsOnThreadIndex(fn, guard->reg, branch)) return branch;
  }
  return -1;
}

report::FixRequest barrierAt(const model::FunctionModel& fn, InstId anchor, bool after) {
  const ThreadsAt at = threadsAt(fn, anchor);
  if (!at.uniform)
    return noMachineFix(fmt::format("a barrier there would not be reached by every thread it waits for: {}; "
                                    "synchronize the threads where they all are",
                                    at.why));
  report::FixRequest request;
  if (!at.narrowed()) {
    request = after ? insertAfter(fn, anchor, report::FenceToInsert::CtaSync)
                    : insertBefore(fn, anchor, report::FenceToInsert::CtaSync);
  } else {
    const int64_t threads = at.range.second - at.range.first + 1;
    auto id = freeBarrierId(fn);
    if (at.range.first % 32 != 0 || threads % 32 != 0 || threads <= 0 || !id)
      return noMachineFix(fmt::format("the threads that get there are threads {}..{}, not whole warps, or no named "
                                      "barrier id is free; synchronize them by hand",
                                      at.range.first, at.range.second));
    request = after ? insertAfter(fn, anchor, report::FenceToInsert::NamedBarrier)
                    : insertBefore(fn, anchor, report::FenceToInsert::NamedBarrier);
    request.count = static_cast<int>(threads);
    request.barrierId = *id;
  }
  return request;
}

report::FixRequest widenScope(const model::FunctionModel& fn, InstId inst, model::Scope from, model::Scope to) {
  report::FixRequest request;
  request.placement = report::FixPlacement::WidenScope;
  request.anchor = report::locationOf(fn, inst);
  request.fromScope = scopeWord(from);
  request.scope = scopeWord(to);
  return request;
}

report::FixRequest noMachineFix(std::string reason) {
  report::FixRequest request;
  request.reason = std::move(reason);
  return request;
}

std::string scopeWord(model::Scope scope) {
  switch (scope) {
    case model::Scope::None:
    case model::Scope::Cta: return "cta";
    case model::Scope::Cluster: return "cluster";
    case model::Scope::Gpu: return "gpu";
    case model::Scope::Sys: return "sys";
  }
  return "cta";
}

}  // namespace fenceline::checks
