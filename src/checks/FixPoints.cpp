// Fix anchors from the program model: see FixPoints.h.
#include "checks/FixPoints.h"

#include "model/ThreadRoles.h"

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
